// Where the CLI keeps its contexts (a server URL each, and that server's session cookie once signed in), in one
// file of mode 0600 in the user's config directory, written atomically (lib/atomic-file.ts).
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../lib/atomic-file.js';
import { CliError, EXIT } from './cli-errors.js';

export interface StoredSession {
  server: string;
  cookie: string;
  context: string;
}

export interface Context {
  server: string;
  /** `token=<jwt>` once signed in; absent after logout. */
  cookie?: string;
}

export interface ConfigFile {
  version: 2;
  currentContext?: string;
  contexts: Record<string, Context>;
}

/** The context a login creates when none is current and none is named. */
export const DEFAULT_CONTEXT = 'default';

const overrides: { file?: string; context?: string } = {};

/** `--config <file>` and `--context <name>` for this run. */
export function setConfigOverrides(options: { config?: string; context?: string }): void {
  overrides.file = options.config;
  overrides.context = options.context;
}

export function configDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GRAPHDB_ADMIN_CONFIG_DIR) return env.GRAPHDB_ADMIN_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'graphdb-admin');
}

/** `--config`, else `GRAPHDB_ADMIN_CLI_CONFIG`, else `session.json` in the config directory. */
export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return overrides.file || env.GRAPHDB_ADMIN_CLI_CONFIG || path.join(configDirectory(env), 'session.json');
}

/** Writes `content` to `file` (mode 0600, its directory created 0700) so a reader sees the old file or the new one. */
export async function writePrivateFile(file: string, content: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, content, 0o600);
}

function isContext(value: unknown): value is Context {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Context).server === 'string' &&
    ((value as Context).cookie === undefined || typeof (value as Context).cookie === 'string')
  );
}

/** Reads the file; the single-server format of earlier versions (`{server, cookie}`) becomes the context `default`. */
export function parseConfig(text: string): { config: ConfigFile; migrated: boolean } {
  const value = JSON.parse(text) as unknown;
  if (isContext(value) && !('contexts' in (value as object)))
    return {
      config: { version: 2, currentContext: DEFAULT_CONTEXT, contexts: { [DEFAULT_CONTEXT]: { ...value } } },
      migrated: true,
    };
  const config = value as Partial<ConfigFile>;
  if (typeof config !== 'object' || config === null || typeof config.contexts !== 'object' || config.contexts === null)
    throw new Error('not a graphdb-admin config file');
  const contexts: Record<string, Context> = {};
  for (const [name, context] of Object.entries(config.contexts)) if (isContext(context)) contexts[name] = context;
  return {
    config: {
      version: 2,
      ...(typeof config.currentContext === 'string' ? { currentContext: config.currentContext } : {}),
      contexts,
    },
    migrated: false,
  };
}

export async function loadConfig(): Promise<ConfigFile> {
  const file = configFilePath();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 2, contexts: {} };
    throw new CliError(EXIT.other, `cannot read ${file}: ${(error as Error).message}`);
  }
  let parsed: ReturnType<typeof parseConfig>;
  try {
    parsed = parseConfig(text);
  } catch (error) {
    throw new CliError(EXIT.other, `${file} is not a graphdb-admin config file (${(error as Error).message})`);
  }
  if (parsed.migrated) await saveConfig(parsed.config);
  return parsed.config;
}

export async function saveConfig(config: ConfigFile): Promise<string> {
  const file = configFilePath();
  await writePrivateFile(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/** `--context`, else the file's current context. */
export function activeContextName(config: ConfigFile): string | undefined {
  return overrides.context ?? config.currentContext;
}

export async function loadSession(): Promise<StoredSession | undefined> {
  const config = await loadConfig();
  const name = activeContextName(config);
  const context = name === undefined ? undefined : config.contexts[name];
  if (overrides.context !== undefined && !context)
    throw new CliError(EXIT.notFound, `no context named ${JSON.stringify(overrides.context)}`);
  if (!context?.cookie) return undefined;
  return { server: context.server, cookie: context.cookie, context: name! };
}

/** Stores a session in the active context (or `default`), which becomes current when none was. */
export async function saveSession(session: { server: string; cookie: string }): Promise<string> {
  const config = await loadConfig();
  const name = activeContextName(config) ?? DEFAULT_CONTEXT;
  config.contexts[name] = { server: session.server, cookie: session.cookie };
  config.currentContext ??= name;
  return saveConfig(config);
}

/** Forgets the active context's session; the context (its server) stays. */
export async function deleteSession(): Promise<void> {
  const config = await loadConfig();
  const name = activeContextName(config);
  const context = name === undefined ? undefined : config.contexts[name];
  if (!context?.cookie) return;
  delete context.cookie;
  await saveConfig(config);
}
