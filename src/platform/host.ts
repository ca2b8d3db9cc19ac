// The host and this process as the operating system reports them: CPU count and busy share, memory, the server's
// own CPU and resident memory. Numbers only; CPU shares are measured between successive calls.
import os from 'node:os';

export interface HostFacts {
  cpuCount: number;
  /** Percent (0–100) of all CPUs busy since the previous call (since boot for the first). */
  cpuBusyPercent: number;
  memoryTotal: number;
  memoryFree: number;
  /** This process: resident memory (bytes) and the cores it used on average since it started. */
  processRss: number;
  processCores: number;
  uptimeSeconds: number;
  platform: string;
  arch: string;
  nodeVersion: string;
}

function cpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const { user, nice, sys, irq, idle } = cpu.times;
    busy += user + nice + sys + irq;
    total += user + nice + sys + irq + idle;
  }
  return { busy, total };
}

export function createHostFacts(): () => HostFacts {
  let previous = { busy: 0, total: 0 };
  return () => {
    const current = cpuTimes();
    const total = current.total - previous.total;
    const busy = current.busy - previous.busy;
    previous = current;
    const uptimeSeconds = process.uptime();
    const { user, system } = process.cpuUsage();
    return {
      cpuCount: os.availableParallelism(),
      cpuBusyPercent: total > 0 ? Math.round((busy / total) * 10000) / 100 : 0,
      memoryTotal: os.totalmem(),
      memoryFree: os.freemem(),
      processRss: process.memoryUsage.rss(),
      processCores: uptimeSeconds > 0 ? Math.round(((user + system) / 1e6 / uptimeSeconds) * 1000) / 1000 : 0,
      uptimeSeconds: Math.round(uptimeSeconds * 1000) / 1000,
      platform: process.platform,
      arch: process.arch,
      nodeVersion: process.version,
    };
  };
}
