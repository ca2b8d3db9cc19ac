// Regenerates openapi/openapi.json from the route schemas by asking a built (never listening) app for its document.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createRedisConnection } from '../src/platform/redis/redis-connection.js';
import { createFileAdminStores } from '../src/platform/stores/file-stores.js';

export const OPENAPI_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'openapi', 'openapi.json');

export function serializeDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

async function main(): Promise<void> {
  const logger = pino({ level: 'silent' });
  // The document does not depend on configuration; the token store client is created but never connected.
  const config = loadConfig({ TOKEN_STORE_URL: 'redis://127.0.0.1:6379', ENABLE_DOCSUI: 'false' });
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'openapi-'));
  const app = await buildApp(config, {
    logger,
    tokenStore: createRedisConnection(config.tokenStoreUrl!, logger),
    adminStores: createFileAdminStores(scratch),
  });
  await app.ready();
  await mkdir(path.dirname(OPENAPI_FILE), { recursive: true });
  await writeFile(OPENAPI_FILE, serializeDocument(app.swagger()));
  await app.close();
  await rm(scratch, { recursive: true, force: true });
  console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
