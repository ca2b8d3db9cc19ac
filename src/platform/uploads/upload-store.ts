// Staged uploads: a file streamed to disk under a random id, within a size bound, readable only by the user who
// uploaded it and only for a while. The bytes never sit whole in memory. Files live in a private temporary
// directory of this process (a restart forgets them), and their count is bounded per user and in all, so staging
// cannot fill the disk.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
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
  /** How long a staged file may be used. */
  ttlMs: number;
  /** Staged files one user may hold at once, and all users together. */
  maxFilesPerOwner: number;
  maxFiles: number;
  now: () => number;
}

/** The upload went past its size bound (the partial file is removed); callers answer it as 413. */
export class UploadTooLargeError extends PortError {
  constructor(limit: number) {
    super('rejected', `The file is larger than the ${limit} bytes allowed`);
    this.name = 'UploadTooLargeError';
  }
}

export function createUploadStore(options: UploadStoreOptions) {
  let dir: Promise<string> | undefined;
  const directory = () => (dir ??= mkdtemp(path.join(os.tmpdir(), 'graphdb-uploads-')));
  const dataPath = async (id: string) => path.join(await directory(), `${id}.data`);
  const files = new Map<string, StagedFile>();
  /** Ids being written, so concurrent uploads count against the bounds too. */
  const writing = new Map<string, string>();

  async function remove(id: string): Promise<void> {
    files.delete(id);
    await rm(await dataPath(id), { force: true });
  }

  async function removeExpired(): Promise<void> {
    const cutoff = options.now() - options.ttlMs;
    for (const file of [...files.values()]) if (file.createdAt < cutoff) await remove(file.id);
  }

  return {
    /**
     * Streams `content` to disk. `truncated()` tells whether the source cut the stream at its size bound: then
     * nothing is kept and UploadTooLargeError is thrown. A user past maxFilesPerOwner, or the store past maxFiles,
     * gets a `conflict` port error before anything is written.
     */
    async stage(
      ownerId: string,
      name: string,
      content: Readable,
      limit: { bytes: number; truncated: () => boolean },
    ): Promise<StagedFile> {
      await removeExpired();
      const owned = [...files.values(), ...[...writing.values()].map((owner) => ({ ownerId: owner }))].filter(
        (file) => file.ownerId === ownerId,
      ).length;
      if (owned >= options.maxFilesPerOwner || files.size + writing.size >= options.maxFiles) {
        content.resume();
        throw new PortError(
          'conflict',
          owned >= options.maxFilesPerOwner
            ? `Too many staged files (at most ${options.maxFilesPerOwner}): run them or wait an hour for them to expire`
            : 'Too many staged files on this server: try again later',
        );
      }
      const id = randomUUID();
      writing.set(id, ownerId);
      const target = await dataPath(id);
      try {
        await pipeline(content, createWriteStream(target, { mode: 0o600 }));
        if (limit.truncated()) throw new UploadTooLargeError(limit.bytes);
        const file: StagedFile = { id, ownerId, name, size: (await stat(target)).size, createdAt: options.now() };
        files.set(id, file);
        return file;
      } catch (error) {
        await remove(id);
        throw error;
      } finally {
        writing.delete(id);
      }
    },

    /** The caller's staged file, or undefined when unknown, someone else's or expired (an expired one is removed). */
    async find(ownerId: string, id: string): Promise<StagedFile | undefined> {
      await removeExpired();
      const file = files.get(id);
      return file?.ownerId === ownerId ? file : undefined;
    },

    async open(file: StagedFile): Promise<Readable> {
      return createReadStream(await dataPath(file.id));
    },

    remove,

    /** Removes the staging directory and everything in it. */
    async close(): Promise<void> {
      files.clear();
      if (dir) await rm(await dir, { recursive: true, force: true });
    },
  };
}

export type UploadStore = ReturnType<typeof createUploadStore>;
