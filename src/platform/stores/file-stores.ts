// Embedded-mode adapters of the storage ports: the settings and RBAC documents and each Secret are files under the
// data directory, written atomically; Secret files have mode 0600. Versions are content hashes. Each read-check-write
// holds an in-process mutex and a lock file, so replicas sharing DATA_DIR cannot overwrite each other's writes.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Mutex } from '../../lib/mutex.js';
import { writeFileAtomic } from '../../lib/atomic-file.js';
import { withFileLock } from './file-lock.js';
import {
  AlreadyExistsError,
  MANAGED_BY,
  StaleVersionError,
  type AdminStores,
  type ConfigMapPort,
  type DataMap,
  type Labels,
  type SecretPort,
  type StoredSecret,
  type Versioned,
} from './ports.js';
import { OBJECT_NAME } from '../../lib/kubernetes-names.js';

const SECRET_NAME = OBJECT_NAME;

function versionOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Holds `dir/name` as the cross-process lock of one read-check-write (the directory is made first). */
async function locked<T>(dir: string, name: string, work: () => Promise<T>): Promise<T> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return withFileLock(path.join(dir, name), work);
}

/**
 * A "ConfigMap" is one file (`settings.json` or `rbac.json` holds the document), so an operator can edit it
 * by hand exactly as they would edit the ConfigMap's data key.
 */
export function createFileConfigMap(dir: string, key = 'settings.json'): ConfigMapPort {
  const file = path.join(dir, key);
  const mutex = new Mutex();
  const read = async (): Promise<Versioned<DataMap> | undefined> => {
    const text = await readText(file);
    return text === undefined ? undefined : { value: { [key]: text }, version: versionOf(text) };
  };
  return {
    description: file,
    read,
    write: (data, version) =>
      mutex.run(() =>
        locked(dir, `.${key}.lock`, async () => {
          const current = await read();
          if (version === undefined && current) throw new AlreadyExistsError(file);
          if (version !== undefined && current?.version !== version) throw new StaleVersionError(file);
          const text = data[key] ?? '';
          await mkdir(dir, { recursive: true, mode: 0o700 });
          await writeFileAtomic(file, text, 0o600);
          return { value: { [key]: text }, version: versionOf(text) };
        }),
      ),
  };
}

/**
 * Each Secret is `<name>.json` (its data); its labels are `.labels/<name>.json`, written when the Secret is created
 * (a Secret name cannot start with a dot, so no Secret's file can be a label file).
 */
export function createFileSecrets(dir: string): SecretPort {
  const mutex = new Mutex();
  const labelDir = path.join(dir, '.labels');
  const checked = (name: string) => {
    if (!SECRET_NAME.test(name)) throw new Error(`invalid secret name ${name}`);
    return name;
  };
  const fileOf = (name: string) => path.join(dir, `${checked(name)}.json`);
  const labelFileOf = (name: string) => path.join(labelDir, `${checked(name)}.json`);
  const read = async (name: string): Promise<StoredSecret | undefined> => {
    const text = await readText(fileOf(name));
    if (text === undefined) return undefined;
    const labelText = await readText(labelFileOf(name));
    const labels = labelText === undefined ? {} : (JSON.parse(labelText) as Labels);
    return { value: JSON.parse(text) as DataMap, version: versionOf(text), labels };
  };
  return {
    read,
    write: (name, data, version, labels) =>
      mutex.run(() =>
        locked(dir, `.${checked(name)}.lock`, async () => {
          const current = await read(name);
          if (version === undefined && current) throw new AlreadyExistsError(`secret ${name}`);
          if (version !== undefined && current?.version !== version) throw new StaleVersionError(`secret ${name}`);
          const text = `${JSON.stringify(data, null, 2)}\n`;
          await mkdir(dir, { recursive: true, mode: 0o700 });
          if (version === undefined) {
            // Labels first: a crash before the data file leaves no Secret, and the next creation rewrites them.
            await mkdir(labelDir, { recursive: true, mode: 0o700 });
            await writeFileAtomic(labelFileOf(name), `${JSON.stringify({ ...labels, ...MANAGED_BY })}\n`, 0o600);
          }
          await writeFileAtomic(fileOf(name), text, 0o600);
          return { value: { ...data }, version: versionOf(text) };
        }),
      ),
  };
}

export function createFileAdminStores(dataDir: string): AdminStores {
  const root = path.join(dataDir, 'admin');
  return {
    settings: createFileConfigMap(root),
    rbac: createFileConfigMap(root, 'rbac.json'),
    secrets: createFileSecrets(path.join(root, 'secrets')),
  };
}

/** Embedded mode's generated first-admin password, readable only by the server's user. */
export async function writeInitialAdminPassword(dataDir: string, password: string): Promise<string> {
  const file = path.join(dataDir, 'initial-admin-password');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${password}\n`, 0o600);
  return file;
}
