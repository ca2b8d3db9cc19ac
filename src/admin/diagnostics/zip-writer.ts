// A minimal ZIP writer (PKWARE APPNOTE 6.3: local headers, deflated data, central directory, end record) for the
// support package, so no archive dependency is needed. Pure: entries in, one Buffer out. No ZIP64: the package is
// bounded far below 4 GiB and 65,535 entries.
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** Forward slashes, no leading slash, no `..` segment. */
  name: string;
  data: Buffer | string;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const VERSION_NEEDED = 20; // 2.0: deflate
const UTF8_NAMES = 0x0800; // general-purpose flag bit 11
const DEFLATE = 8;
const STORE = 0;
const MAX_ENTRIES = 0xffff;
const MAX_SIZE = 0xffffffff;

/** MS-DOS date and time of `at` (local fields from UTC, 2-second resolution; years 1980–2107). */
function dosDateTime(at: Date): { date: number; time: number } {
  const year = Math.min(Math.max(at.getUTCFullYear(), 1980), 2107);
  return {
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
  };
}

function checkName(name: string): Buffer {
  if (name === '' || name.startsWith('/') || name.includes('\\') || name.split('/').includes('..'))
    throw new Error(`invalid zip entry name ${JSON.stringify(name)}`);
  return Buffer.from(name, 'utf8');
}

/** The archive of `entries`, each deflated unless deflating would make it larger. */
export function writeZip(entries: readonly ZipEntry[], modifiedAt: Date = new Date()): Buffer {
  if (entries.length > MAX_ENTRIES) throw new Error('too many zip entries');
  const { date, time } = dosDateTime(modifiedAt);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const seen = new Set<string>();
  for (const entry of entries) {
    const name = checkName(entry.name);
    if (seen.has(entry.name)) throw new Error(`duplicate zip entry ${entry.name}`);
    seen.add(entry.name);
    const data = typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data;
    const deflated = deflateRawSync(data);
    const method = deflated.length < data.length ? DEFLATE : STORE;
    const stored = method === DEFLATE ? deflated : data;
    if (data.length > MAX_SIZE || offset + stored.length > MAX_SIZE) throw new Error('zip archive too large');
    const checksum = crc32(data);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(checksum, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL_HEADER, 0);
    central.writeUInt16LE((3 << 8) | VERSION_NEEDED, 4); // made by: UNIX, 2.0
    central.writeUInt16LE(VERSION_NEEDED, 6);
    central.writeUInt16LE(UTF8_NAMES, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(checksum, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    // extra length, comment length, disk number, internal attributes: 0
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);

    locals.push(local, name, stored);
    centrals.push(central, name);
    offset += local.length + name.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
