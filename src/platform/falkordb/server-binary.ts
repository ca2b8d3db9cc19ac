// Finds a Redis-compatible server binary that can load the FalkorDB module (needs Redis 7.2+ or any Valkey).
import { execFile } from 'node:child_process';
import path from 'node:path';

export interface ServerBinary {
  path: string;
  /** Where it came from, for the start-up log. */
  source: string;
  version: string;
}

interface Candidate {
  command: string;
  source: string;
}

const MINIMUM_REDIS = [7, 2] as const;

function runVersion(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, ['--version'], { timeout: 5000 }, (error, stdout, stderr) => {
      if (error) {
        const detail =
          (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : firstLine(stderr) || error.message;
        reject(new Error(detail));
      } else resolve(stdout);
    });
  });
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}

/** Parses `Redis server v=7.0.15 ...` or `Valkey server v=8.0.1 ...`. Pure. */
export function parseServerVersion(
  output: string,
): { flavour: 'valkey' | 'redis'; version: string; major: number; minor: number } | undefined {
  const match = /^(Valkey|Redis) server v=(\d+)\.(\d+)\.(\d+)/im.exec(output.trim());
  if (!match) return undefined;
  return {
    flavour: match[1]!.toLowerCase() as 'valkey' | 'redis',
    version: `${match[2]}.${match[3]}.${match[4]}`,
    major: Number(match[2]),
    minor: Number(match[3]),
  };
}

/** Valkey forked from Redis 7.2, so every Valkey release loads modules built for 7.2. */
export function canLoadFalkorDB(parsed: NonNullable<ReturnType<typeof parseServerVersion>>): boolean {
  if (parsed.flavour === 'valkey') return true;
  return parsed.major > MINIMUM_REDIS[0] || (parsed.major === MINIMUM_REDIS[0] && parsed.minor >= MINIMUM_REDIS[1]);
}

async function probe(candidate: Candidate): Promise<ServerBinary> {
  const parsed = parseServerVersion(await runVersion(candidate.command));
  if (!parsed) throw new Error('does not report a Redis or Valkey version');
  if (!canLoadFalkorDB(parsed)) throw new Error(`version ${parsed.version} is older than 7.2`);
  return { path: candidate.command, source: candidate.source, version: `${parsed.flavour} ${parsed.version}` };
}

export const INSTALL_HINT = [
  'Install Valkey 8 (Debian 12, as root): enable the bookworm-backports suite, then `apt-get install -t bookworm-backports valkey-server`',
  '(running `npm start` or `npm test` as root does this for you);',
  'or set FALKORDB_SERVER_BIN to a valkey-server or redis-server 7.2 or newer;',
  'or set TOKEN_STORE_URL to an existing FalkorDB so no embedded one is needed.',
].join('\n  ');

/**
 * Order: the explicit setting (no fallback when it is set but broken), then valkey-server and redis-server
 * on PATH, then the redis-server bundled with the FalkorDB module package (it needs glibc 2.38).
 */
export async function findServerBinary(options: { explicit?: string; bundledDir?: string }): Promise<ServerBinary> {
  if (options.explicit) {
    try {
      return await probe({ command: options.explicit, source: 'FALKORDB_SERVER_BIN' });
    } catch (error) {
      throw new Error(
        `FALKORDB_SERVER_BIN=${options.explicit} cannot run FalkorDB: ${(error as Error).message}.\n  ${INSTALL_HINT}`,
      );
    }
  }
  const candidates: Candidate[] = [
    { command: 'valkey-server', source: 'PATH' },
    { command: 'redis-server', source: 'PATH' },
  ];
  if (options.bundledDir)
    candidates.push({
      command: path.join(options.bundledDir, 'redis-server'),
      source: 'bundled with @falkordblite/linux-x64',
    });
  const failures: string[] = [];
  for (const candidate of candidates) {
    try {
      return await probe(candidate);
    } catch (error) {
      failures.push(`${candidate.command}: ${(error as Error).message}`);
    }
  }
  throw new Error(`No server binary can load the FalkorDB module (tried ${failures.join('; ')}).\n  ${INSTALL_HINT}`);
}
