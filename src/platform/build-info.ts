// The server's own version, from its package.json (two levels up from src/platform and from dist/platform alike).
import { readFileSync } from 'node:fs';

function readVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const SERVER_VERSION = readVersion();
