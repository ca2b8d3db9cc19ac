// The support package's archive, written by fflate: entries in, one Buffer out (the package is small and bounded, so
// it is built whole). What is ours is the check of the entry names: relative, forward slashes, no `..`, each once.
import { zipSync, type Zippable } from 'fflate';

export interface ZipEntry {
  /** Forward slashes, no leading slash, no `..` segment. */
  name: string;
  data: Buffer | string;
}

/** Unix, as the central directory states it, so the mode below reads as file permissions. */
const MADE_ON_UNIX = 3;
/** A regular file, rw-r--r--. */
const REGULAR_FILE = (0o100644 << 16) >>> 0;

function checkName(name: string): void {
  if (name === '' || name.startsWith('/') || name.includes('\\') || name.split('/').includes('..'))
    throw new Error(`invalid zip entry name ${JSON.stringify(name)}`);
}

/** The archive of `entries`, deflated, each stamped `modifiedAt`. */
export function writeZip(entries: readonly ZipEntry[], modifiedAt: Date = new Date()): Buffer {
  const files: Zippable = {};
  for (const entry of entries) {
    checkName(entry.name);
    if (Object.hasOwn(files, entry.name)) throw new Error(`duplicate zip entry ${entry.name}`);
    const data = typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data;
    files[entry.name] = [data, { mtime: modifiedAt, os: MADE_ON_UNIX, attrs: REGULAR_FILE }];
  }
  const archive = zipSync(files, { level: 6 });
  return Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
}
