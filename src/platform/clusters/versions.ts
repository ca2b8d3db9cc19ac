// Version strings of FalkorDB: MODULE LIST's number as text, and an order for dotted versions. Pure.

/** 41205 → `4.12.5` (MODULE LIST reports the graph module's version as major·10000 + minor·100 + patch). */
export function moduleVersionText(version: number): string {
  return `${Math.floor(version / 10000)}.${Math.floor(version / 100) % 100}.${version % 100}`;
}

/** Orders `4.12.5` before `4.9.10` (newest first): numeric parts compared as numbers, text parts as text. */
export function newestFirst(a: string, b: string): number {
  const partsA = a.split(/[.-]/);
  const partsB = b.split(/[.-]/);
  for (let index = 0; index < Math.max(partsA.length, partsB.length); index += 1) {
    const x = partsA[index] ?? '';
    const y = partsB[index] ?? '';
    if (x === y) continue;
    // `4.12.5-rc1` is older than `4.12.5`: a pre-release part where the other version has ended.
    if (y === '' && !/^\d+$/.test(x)) return 1;
    if (x === '' && !/^\d+$/.test(y)) return -1;
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    return numeric ? Number(y) - Number(x) : y.localeCompare(x);
  }
  return 0;
}
