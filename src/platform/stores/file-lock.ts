// A lock between processes on one machine that share DATA_DIR (two replicas without Kubernetes): a lock file created
// with O_EXCL, holding the holder's pid. It is held for the few milliseconds of one read-check-write of a file store,
// so waiting is short; a holder that died (its pid gone) or a lock older than STALE_MS is broken. Node has no flock(),
// and a lock library that judges staleness by age alone would leave a crashed holder's lock in place for its whole
// stale period (docs/decisions/file-store-lock.md).
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { PortError } from '../port-errors.js';

/** No read-check-write of a file store takes this long: a lock this old belongs to a holder that is gone. */
const STALE_MS = 30_000;
const WAIT_MAX_MS = 15_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the lock file when its holder is gone; true when it did (or the file vanished meanwhile). */
async function breakIfStale(file: string): Promise<boolean> {
  const [text, info] = await Promise.all([
    readFile(file, 'utf8').catch(() => undefined),
    stat(file).catch(() => undefined),
  ]);
  if (text === undefined || info === undefined) return true;
  const pid = Number.parseInt(text, 10);
  const dead = Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid);
  if (!dead && Date.now() - info.mtimeMs < STALE_MS) return false;
  // Renamed away first, so that of two processes breaking it at once only one removes it.
  const aside = `${file}.${randomBytes(4).toString('hex')}.stale`;
  await rename(file, aside).catch(() => undefined);
  await rm(aside, { force: true });
  return true;
}

/** Runs `work` while holding the lock file `file` (created next to the data it guards). */
export async function withFileLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + WAIT_MAX_MS;
  let pause = 2;
  for (;;) {
    try {
      const handle = await open(file, 'wx', 0o600);
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await breakIfStale(file)) continue;
    if (Date.now() >= deadline)
      throw new PortError(
        'unavailable',
        `${path.basename(file)} stayed locked by another process for ${WAIT_MAX_MS} ms`,
      );
    await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
    pause = Math.min(pause * 2, 50);
  }
  try {
    return await work();
  } finally {
    await rm(file, { force: true });
  }
}
