// Staged uploads: a file streamed to disk under a random id, within a size bound, readable only by the user who
// uploaded it and only for a while. The bytes never sit whole in memory.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PortError } from '../port-errors.js';

export interface StagedFile {
  id: string;
  ownerId: string;
  name: string;
  size: number;
  createdAt: number;
}

export interface UploadStoreOptions {
  /** Where files are staged; a private temporary directory when not given. */
  dir?: string;
  /** How long a staged file may be used. */
  ttlMs: number;
  now: () => number;
}

const ID = /^[0-9a-f-]{36}$/;

/** The upload went past its size bound (the partial file is removed); callers answer it as 413. */
export class UploadTooLargeError extends PortError {
  constructor(limit: number) {
    super('rejected', `The file is larger than the ${limit} bytes allowed`);
    this.name = 'UploadTooLargeError';
  }
}

export function createUploadStore(options: UploadStoreOptions) {
  let dir: Promise<string> | undefined;
  const directory = () =>
    (dir ??= options.dir
      ? mkdir(options.dir, { recursive: true, mode: 0o700 }).then(() => options.dir!)
      : mkdtemp(path.join(os.tmpdir(), 'graphdb-uploads-')));
  const dataPath = async (id: string) => path.join(await directory(), `${id}.data`);
  const metaPath = async (id: string) => path.join(await directory(), `${id}.json`);

  async function remove(id: string): Promise<void> {
    await Promise.all([rm(await dataPath(id), { force: true }), rm(await metaPath(id), { force: true })]);
  }

  return {
    /**
     * Streams `content` to disk. `truncated()` tells whether the source cut the stream at its size bound (the
     * multipart parser does so at UPLOAD_BYTES_MAX): then nothing is kept and UploadTooLargeError is thrown.
     */
    async stage(
      ownerId: string,
      name: string,
      content: Readable,
      limit: { bytes: number; truncated: () => boolean },
    ): Promise<StagedFile> {
      const id = randomUUID();
      const target = await dataPath(id);
      try {
        await pipeline(content, createWriteStream(target, { mode: 0o600 }));
        if (limit.truncated()) throw new UploadTooLargeError(limit.bytes);
      } catch (error) {
        await remove(id);
        throw error;
      }
      const file: StagedFile = { id, ownerId, name, size: (await stat(target)).size, createdAt: options.now() };
      await writeFile(await metaPath(id), JSON.stringify(file), { mode: 0o600 });
      return file;
    },

    /** The caller's staged file, or undefined when unknown, someone else's or expired (an expired one is removed). */
    async find(ownerId: string, id: string): Promise<StagedFile | undefined> {
      if (!ID.test(id)) return undefined;
      let file: StagedFile;
      try {
        file = JSON.parse(await readFile(await metaPath(id), 'utf8')) as StagedFile;
      } catch {
        return undefined;
      }
      if (options.now() - file.createdAt > options.ttlMs) {
        await remove(id);
        return undefined;
      }
      return file.ownerId === ownerId ? file : undefined;
    },

    async open(file: StagedFile): Promise<Readable> {
      return createReadStream(await dataPath(file.id));
    },

    remove,

    /** Removes the staging directory when it was a private temporary one. */
    async close(): Promise<void> {
      if (dir && !options.dir) await rm(await dir, { recursive: true, force: true });
    },
  };
}

export type UploadStore = ReturnType<typeof createUploadStore>;
