// Where the CLI keeps its session: the server URL and the session cookie, in the user's config directory, mode 0600.
import { mkdir, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface StoredSession {
  server: string;
  cookie: string;
}

export function configDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GRAPHDB_ADMIN_CONFIG_DIR) return env.GRAPHDB_ADMIN_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'graphdb-admin');
}

const sessionFile = () => path.join(configDirectory(), 'session.json');

export async function loadSession(): Promise<StoredSession | undefined> {
  try {
    return JSON.parse(await readFile(sessionFile(), 'utf8')) as StoredSession;
  } catch {
    return undefined;
  }
}

export async function saveSession(session: StoredSession): Promise<string> {
  const file = sessionFile();
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify(session), { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

export async function deleteSession(): Promise<void> {
  await rm(sessionFile(), { force: true });
}
