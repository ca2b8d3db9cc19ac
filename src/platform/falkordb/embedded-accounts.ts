// The embedded FalkorDB's accounts: `default` switched off, an administrator for the person who started the server,
// and a least-privilege account for the token store. Passwords are generated once into DATA_DIR; the ACL file keeps
// every other user created through the browser API.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../lib/atomic-file.js';

export interface DatabaseAccount {
  username: string;
  password: string;
}

export interface EmbeddedAccounts {
  /** `ACL SAVE` writes the users created through the browser API here, so they survive a restart. */
  aclFile: string;
  admin: DatabaseAccount;
  tokenStore: DatabaseAccount;
  /** Where the administrator's password is kept (named in the start-up log, never printed). */
  adminPasswordFile: string;
}

export const EMBEDDED_ADMIN_USER = 'admin';
export const TOKEN_STORE_USER = 'graphdb-token-store';
export const TOKEN_STORE_KEY_PREFIX = 'graphdb:';
export const ADMIN_PASSWORD_FILE = 'falkordb-admin-password';
export const TOKEN_STORE_PASSWORD_FILE = 'falkordb-token-store-password';
export const ACL_FILE = 'users.acl';

/**
 * Exactly what the shared store's users send, on its own key prefix and channel prefix: the token store
 * (platform/stores/token-store.ts, platform/redis/revocation-channel.ts), the admin change channel
 * (platform/redis/change-channel.ts) and the audit log (platform/stores/audit-store.ts, whose Lua script runs ZCOUNT,
 * ZINTERCARD, ZRANGE and ZMSCORE under this account's rights too). `client|setinfo` is what node-redis sends on connect; `select` reaches database 1.
 */
const TOKEN_STORE_COMMANDS = [
  'ping',
  'select',
  'client|setinfo',
  'hgetall',
  'hset',
  'hsetnx',
  'set',
  'exists',
  'zadd',
  'zrange',
  'zrem',
  'pexpireat',
  'multi',
  'exec',
  'discard',
  'publish',
  'subscribe',
  'unsubscribe',
  // the CLI sign-in's one-time codes (platform/stores/one-time-codes.ts)
  'getdel',
  // the audit log
  'mget',
  'del',
  'zcard',
  'zcount',
  'zintercard',
  'zmscore',
  'eval',
  'evalsha',
];

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** ACL file lines for the three accounts this server owns. Passwords are stored as SHA-256 (`#`), never in clear. */
export function serviceAccountLines(accounts: Pick<EmbeddedAccounts, 'admin' | 'tokenStore'>): Map<string, string> {
  const { admin, tokenStore } = accounts;
  return new Map([
    // `default` has no password and would answer anyone who can reach the port: off, so no connection can be it.
    // Its rules stay wide because Valkey 8.0 checks them for the AOF loader's replay of MULTI/EXEC: with `-@all`
    // here, every transaction in the AOF (each token the store saved) was dropped at the next start.
    ['default', 'user default off resetpass ~* &* +@all'],
    [admin.username, `user ${admin.username} on #${sha256Hex(admin.password)} ~* &* +@all`],
    [
      tokenStore.username,
      `user ${tokenStore.username} on #${sha256Hex(tokenStore.password)} resetkeys ~${TOKEN_STORE_KEY_PREFIX}* resetchannels ` +
        `&${TOKEN_STORE_KEY_PREFIX}* -@all ${TOKEN_STORE_COMMANDS.map((command) => `+${command}`).join(' ')}`,
    ],
  ]);
}

/**
 * The ACL file to start the server with: every user line already there is kept (users made through the browser
 * API and saved with `ACL SAVE`), except that the three service accounts are always rewritten to their definition,
 * so a password or rule changed by hand cannot survive a restart.
 */
export function mergeAclFile(existing: string, accounts: Pick<EmbeddedAccounts, 'admin' | 'tokenStore'>): string {
  const owned = serviceAccountLines(accounts);
  const kept = existing
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !owned.has(line.split(/\s+/)[1] ?? ''));
  return `${[...owned.values(), ...kept].join('\n')}\n`;
}

async function readOrCreatePassword(file: string): Promise<string> {
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (stored.length >= 32) {
      await chmod(file, 0o600);
      return stored;
    }
    throw new Error(`${file} holds no usable password (at least 32 characters); fix or delete it`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const password = randomBytes(32).toString('base64url');
  await writeFileAtomic(file, `${password}\n`, 0o600);
  return password;
}

/** Reads the accounts' passwords from `dataDir`, generating each once (mode 0600). */
export async function loadOrCreateEmbeddedAccounts(dataDir: string, aclDir: string): Promise<EmbeddedAccounts> {
  const adminPasswordFile = path.join(dataDir, ADMIN_PASSWORD_FILE);
  return {
    aclFile: path.join(aclDir, ACL_FILE),
    admin: { username: EMBEDDED_ADMIN_USER, password: await readOrCreatePassword(adminPasswordFile) },
    tokenStore: {
      username: TOKEN_STORE_USER,
      password: await readOrCreatePassword(path.join(dataDir, TOKEN_STORE_PASSWORD_FILE)),
    },
    adminPasswordFile,
  };
}

/** `redis://user:password@host:port/db` with both parts encoded. */
export function accountUrl(host: string, port: number, account: DatabaseAccount, database = 0): string {
  return `redis://${encodeURIComponent(account.username)}:${encodeURIComponent(account.password)}@${host}:${port}/${database}`;
}
