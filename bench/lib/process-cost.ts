// What a process spent while a load ran: CPU time and system calls from /proc (Linux), so a bench row can say where
// each request's time went (the server, FalkorDB, the load generator) instead of guessing from throughput alone.
import { readFile } from 'node:fs/promises';

export interface ProcessCounters {
  cpuSeconds: number;
  /** The part of cpuSeconds spent in the kernel (stime): on loopback, a send also runs the receiver's side of TCP. */
  kernelSeconds: number;
  readCalls: number;
  writeCalls: number;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** Sums every thread of the process (utime + stime from /proc/<pid>/stat; syscr/syscw from /proc/<pid>/io). */
export async function readProcessCounters(pid: number): Promise<ProcessCounters | undefined> {
  try {
    const [stat, io] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile(`/proc/${pid}/io`, 'utf8')]);
    return parseProcessCounters(stat, io);
  } catch {
    return undefined; // not Linux, or the process is gone
  }
}

export function parseProcessCounters(stat: string, io: string): ProcessCounters {
  // The command name in parentheses may hold spaces and parentheses: fields are counted after the last `)`.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [userTicks, kernelTicks] = [Number(fields[11]), Number(fields[12])];
  const counter = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? Number.NaN);
  return {
    cpuSeconds: (userTicks + kernelTicks) / CLOCK_TICKS_PER_SECOND,
    kernelSeconds: kernelTicks / CLOCK_TICKS_PER_SECOND,
    readCalls: counter('syscr'),
    writeCalls: counter('syscw'),
  };
}

export interface RequestCost {
  cpuMicroseconds: number;
  kernelMicroseconds: number;
  readCalls: number;
  writeCalls: number;
}

/** Per request, between two readings. */
export function costPerRequest(before: ProcessCounters, after: ProcessCounters, requests: number): RequestCost {
  const per = (value: number) => (requests > 0 ? value / requests : Number.NaN);
  return {
    cpuMicroseconds: per((after.cpuSeconds - before.cpuSeconds) * 1e6),
    kernelMicroseconds: per((after.kernelSeconds - before.kernelSeconds) * 1e6),
    readCalls: per(after.readCalls - before.readCalls),
    writeCalls: per(after.writeCalls - before.writeCalls),
  };
}
