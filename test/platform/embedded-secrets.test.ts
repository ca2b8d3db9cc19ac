import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMBEDDED_SECRETS_FILE, loadOrCreateEmbeddedSecrets } from '../../src/platform/embedded-secrets.js';

describe('embedded secrets', () => {
  it('are generated once, stored with mode 0600, and read back unchanged', async () => {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'gdb-secrets-')), 'nested');
    const first = await loadOrCreateEmbeddedSecrets(dir);
    expect(first.created).toBe(true);
    expect(first.secrets.ENCRYPTION_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(first.secrets.AUTH_SECRET.length).toBeGreaterThanOrEqual(32);
    expect((await stat(first.file)).mode & 0o777).toBe(0o600);
    const second = await loadOrCreateEmbeddedSecrets(dir);
    expect(second.created).toBe(false);
    expect(second.secrets).toEqual(first.secrets);
    expect(JSON.parse(await readFile(path.join(dir, EMBEDDED_SECRETS_FILE), 'utf8'))).toEqual(first.secrets);
  });

  it('refuses a corrupt file rather than silently replacing it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gdb-secrets-'));
    await writeFile(path.join(dir, EMBEDDED_SECRETS_FILE), '{"AUTH_SECRET": 1');
    await expect(loadOrCreateEmbeddedSecrets(dir)).rejects.toThrow(/is not a valid secrets file/);
  });
});
