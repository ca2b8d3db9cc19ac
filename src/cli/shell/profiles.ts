// The shell's connection profiles: a graphdb-server URL and a personal access token each (made from database
// credentials by POST /api/auth/tokens/credentials; the password itself is never stored), with a default graph. One
// file, profiles.json, in the same directory and with the same care as graphdb-admin's sessions: mode 0600, replaced
// atomically. GRAPHDB_SHELL_PROFILES overrides the file.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError, EXIT } from '../cli-errors.js';
import { configDirectory, writePrivateFile } from '../session-file.js';

export interface Profile {
  server: string;
  token: string;
  graph?: string;
  /** What the token was made from, shown by `graphdb profile list` (never the password). */
  username?: string;
  host?: string;
  port?: number;
}

export interface ProfileFile {
  version: 1;
  current?: string;
  profiles: Record<string, Profile>;
}

export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.GRAPHDB_SHELL_PROFILES || path.join(configDirectory(env), 'profiles.json');
}

export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(path.dirname(profilesPath(env)), 'shell-history');
}

export async function loadProfiles(): Promise<ProfileFile> {
  const file = profilesPath();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, profiles: {} };
    throw new CliError(EXIT.other, `cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as ProfileFile;
    if (parsed.version !== 1 || typeof parsed.profiles !== 'object' || parsed.profiles === null)
      throw new Error('unknown format');
    return parsed;
  } catch (error) {
    throw new CliError(EXIT.other, `${file} is not a graphdb profile file (${(error as Error).message})`);
  }
}

export async function saveProfiles(profiles: ProfileFile): Promise<string> {
  const file = profilesPath();
  await writePrivateFile(file, `${JSON.stringify(profiles, null, 2)}\n`);
  return file;
}
