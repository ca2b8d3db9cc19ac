// Staged uploads: a file streamed to disk under a random id, within a size bound, readable only by the user who
// uploaded it and only for a while. The bytes never sit whole in memory. Files live in a private temporary
// directory of this process (a restart forgets them), and their count and bytes are bounded per user and in all, so
// staging cannot fill the disk, and one user cannot take everyone's share.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
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
  /** Bytes the staged files (and those being written) of one user, and of all users together, may take. */
  bytesPerOwner: number;
  bytesMax: number;
  now: () => number;
}

/** The upload went past its size bound (the partial file is removed); callers answer it as 413. */
export class UploadTooLargeError extends PortError {
  constructor(limit: number) {
    super('rejected', `The file is larger than the ${limit} bytes allowed`);
    this.name = 'UploadTooLargeError';
  }
}

/**
 * Staging the file would take its user past their share of the staging space (`owner`), or the server past all of
 * it (`server`): nothing is kept.
 */
export class StagingSpaceError extends PortError {
  constructor(
    readonly scope: 'owner' | 'server',
    readonly limit: number,
  ) {
    super(
      'conflict',
      scope === 'owner'
        ? `Your staged files would take more than the ${limit} bytes allowed`
        : 'The server has no staging space left',
    );
    this.name = 'StagingSpaceError';
  }
}

export function createUploadStore(options: UploadStoreOptions) {
  let dir: Promise<string> | undefined;
  const directory = () => (dir ??= mkdtemp(path.join(os.tmpdir(), 'graphdb-uploads-')));
  const dataPath = async (id: string) => path.join(await directory(), `${id}.data`);
  const files = new Map<string, StagedFile>();
  /** Files being written, with their owners, so concurrent uploads count against the bounds too. */
  const writing = new Map<string, string>();
  /** Bytes on disk (staged and being written), per owner and in all. */
  const ownedBytes = new Map<string, number>();
  let totalBytes = 0;
  const count = (ownerId: string, bytes: number) => {
    totalBytes += bytes;
    const owned = (ownedBytes.get(ownerId) ?? 0) + bytes;
    if (owned > 0) ownedBytes.set(ownerId, owned);
    else ownedBytes.delete(ownerId);
  };
  /** Which bound, if any, the bytes on disk are past. */
  const pastSpace = (ownerId: string): 'owner' | 'server' | undefined =>
    (ownedBytes.get(ownerId) ?? 0) > options.bytesPerOwner
      ? 'owner'
      : totalBytes > options.bytesMax
        ? 'server'
        : undefined;

  async function remove(id: string): Promise<void> {
    const file = files.get(id);
    if (file) count(file.ownerId, -file.size);
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
     * gets a `conflict` port error before anything is written; a file that would take its user past bytesPerOwner,
     * or the store past bytesMax, a StagingSpaceError (nothing of it is kept).
     */
    async stage(
      ownerId: string,
      name: string,
      content: Readable,
      limit: { bytes: number; truncated: () => boolean },
    ): Promise<StagedFile> {
      await removeExpired();
      const owned =
        [...files.values()].filter((file) => file.ownerId === ownerId).length +
        [...writing.values()].filter((owner) => owner === ownerId).length;
      if (owned >= options.maxFilesPerOwner || files.size + writing.size >= options.maxFiles) {
        content.resume();
        throw new PortError(
          'conflict',
          owned >= options.maxFilesPerOwner
            ? `Too many staged files (at most ${options.maxFilesPerOwner}): run them or wait an hour for them to expire`
            : 'Too many staged files on this server: try again later',
        );
      }
      // A user whose share is full, or a full server, is refused before a byte is written.
      const full =
        (ownedBytes.get(ownerId) ?? 0) >= options.bytesPerOwner
          ? 'owner'
          : totalBytes >= options.bytesMax
            ? 'server'
            : undefined;
      if (full) {
        content.resume();
        throw new StagingSpaceError(full, full === 'owner' ? options.bytesPerOwner : options.bytesMax);
      }
      const id = randomUUID();
      writing.set(id, ownerId);
      const target = await dataPath(id);
      // Counted as written. Past a bound, the rest is read and dropped (the request must still be read to its end
      // to be answered), and nothing of it is kept.
      let written = 0;
      let refused: 'owner' | 'server' | undefined;
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          if (refused) return done();
          written += chunk.length;
          count(ownerId, chunk.length);
          refused = pastSpace(ownerId);
          done(null, refused ? undefined : chunk);
        },
      });
      try {
        await pipeline(content, counted, createWriteStream(target, { mode: 0o600 }));
        if (limit.truncated()) throw new UploadTooLargeError(limit.bytes);
        if (refused)
          throw new StagingSpaceError(refused, refused === 'owner' ? options.bytesPerOwner : options.bytesMax);
        const file: StagedFile = { id, ownerId, name, size: written, createdAt: options.now() };
        files.set(id, file);
        return file;
      } catch (error) {
        count(ownerId, -written);
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

    /** The file's content, read as it is consumed (`not-found` once the file was run, removed or expired). */
    async open(file: StagedFile): Promise<Readable> {
      if (!files.has(file.id))
        throw new PortError('not-found', `File ${file.id} not found (staged files last an hour)`);
      return createReadStream(await dataPath(file.id));
    },

    remove,

    /** Removes the staging directory and everything in it. */
    async close(): Promise<void> {
      files.clear();
      ownedBytes.clear();
      totalBytes = 0;
      if (dir) await rm(await dir, { recursive: true, force: true });
    },
  };
}

export type UploadStore = ReturnType<typeof createUploadStore>;
