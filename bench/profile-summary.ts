// Summarizes V8 CPU profiles written by `node --cpu-prof` (BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=…'):
// the functions with the most self time, and the share of time under our own code, Fastify, the Redis client,
// jose and the garbage collector. Usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map<number, number>();
profile.samples.forEach((id, index) =>
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)),
);

const where = (url: string): string => {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1]!;
  if (url.includes('/dist/')) return 'graphdb-server';
  if (url.startsWith('node:')) return url.replace('node:internal/', 'node:');
  return url === '' ? 'native/V8' : url;
};

const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);
const functions = new Map<string, number>();
const packages = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const { callFrame } = byId.get(id)!;
  const name = `${callFrame.functionName || '(anonymous)'}  ${where(callFrame.url)}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
  functions.set(name, (functions.get(name) ?? 0) + micros);
  const owner =
    callFrame.functionName === '(idle)'
      ? '(idle)'
      : callFrame.url.startsWith('node:')
        ? 'node core'
        : where(callFrame.url);
  packages.set(owner, (packages.get(owner) ?? 0) + micros);
}
const pct = (micros: number) => `${((micros / total) * 100).toFixed(1).padStart(5)}%`;
const top = Number(topArg ?? 25);
console.log(`total ${(total / 1e6).toFixed(1)} s sampled`);
console.log('\nself time by package');
for (const [name, micros] of [...packages].sort((a, b) => b[1] - a[1]).slice(0, 15))
  console.log(`${pct(micros)}  ${name}`);
console.log(`\ntop ${top} functions by self time`);
for (const [name, micros] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${pct(micros)}  ${name}`);
