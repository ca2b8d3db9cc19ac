// In embedded mode, secrets the operator did not set are generated once and kept in the data directory,
// so tokens and sessions survive a restart. Outside embedded mode nothing is ever generated.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../lib/atomic-file.js';

export const EMBEDDED_SECRETS_FILE = 'secrets.json';

const StoredSecretsSchema = z.object({
  AUTH_SECRET: z.string().min(32),
  ENCRYPTION_KEY: z.string().regex(/^[0-9a-f]{64}$/),
  SESSION_SECRET: z.string().min(32),
});
export type EmbeddedSecrets = z.infer<typeof StoredSecretsSchema>;

function generate(): EmbeddedSecrets {
  return {
    AUTH_SECRET: randomBytes(48).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SESSION_SECRET: randomBytes(48).toString('base64url'),
  };
}

async function readStored(file: string): Promise<EmbeddedSecrets | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = StoredSecretsSchema.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `${file} is not a valid secrets file; fix or delete it (deleting invalidates existing tokens and sessions)`,
    );
  return parsed.data;
}

/**
 * Returns the secrets stored in `dataDir`, creating the file (mode 0600) on first use.
 * Values the operator set explicitly are used by the caller instead; the file is kept whole so
 * removing an explicit value later falls back to a stable secret rather than a new one.
 */
export async function loadOrCreateEmbeddedSecrets(
  dataDir: string,
): Promise<{ secrets: EmbeddedSecrets; file: string; created: boolean }> {
  const file = path.join(dataDir, EMBEDDED_SECRETS_FILE);
  const stored = await readStored(file);
  if (stored) {
    await chmod(file, 0o600);
    return { secrets: stored, file, created: false };
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const secrets = generate();
  await writeFileAtomic(file, `${JSON.stringify(secrets, null, 2)}\n`, 0o600);
  return { secrets, file, created: true };
}
