// Reading a zip in tests with yauzl, a reader independent of the writer (fflate), which also checks each entry's
// sizes; the CRC-32 it leaves to its caller is checked here.
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';

export interface ReadEntry {
  name: string;
  /** 8: deflated, 0: stored. */
  method: number;
  data: Buffer;
}

export async function readZip(archive: Buffer): Promise<ReadEntry[]> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(archive, { lazyEntries: true, strictFileNames: true }, (error, opened) =>
      error ? reject(error) : resolve(opened),
    ),
  );
  const entries: ReadEntry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', reject);
        stream.on('end', () => {
          const data = Buffer.concat(chunks);
          if (crc32(data) !== entry.crc32) return reject(new Error(`CRC mismatch for ${entry.fileName}`));
          entries.push({ name: entry.fileName, method: entry.compressionMethod, data });
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  return entries;
}
