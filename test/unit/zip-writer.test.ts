import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { writeZip } from '../../src/admin/diagnostics/zip-writer.js';
import { readZip } from '../support/zip-reader.js';

function hasUnzip(): boolean {
  try {
    execFileSync('unzip', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('zip writer', () => {
  const entries = [
    { name: 'manifest.json', data: JSON.stringify({ hello: 'wörld' }) },
    { name: 'logs/server.log', data: 'line\n'.repeat(2000) },
    { name: 'random.bin', data: randomBytes(4096) },
    { name: 'empty.txt', data: '' },
  ];

  it('round-trips every entry (deflated when that is smaller, stored otherwise) with CRC-32 and sizes', () => {
    const archive = writeZip(entries, new Date('2026-11-24T10:20:30Z'));
    const read = readZip(archive);
    expect(read.map((entry) => entry.name)).toEqual(entries.map((entry) => entry.name));
    for (const [index, entry] of read.entries()) {
      const expected = entries[index]!.data;
      expect(entry.data.equals(typeof expected === 'string' ? Buffer.from(expected) : expected)).toBe(true);
    }
    expect(read.find((entry) => entry.name === 'logs/server.log')!.method).toBe(8);
    expect(read.find((entry) => entry.name === 'random.bin')!.method).toBe(0);
    expect(archive.length).toBeLessThan(4096 + 2000);
  });

  it('is an archive `unzip` accepts and lists', () => {
    if (!hasUnzip()) return;
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'zip-')), 'test.zip');
    writeFileSync(file, writeZip(entries, new Date('2026-11-24T10:20:30Z')));
    const listing = execFileSync('unzip', ['-l', file], { encoding: 'utf8' });
    for (const entry of entries) expect(listing).toContain(entry.name);
    expect(listing).toContain('2026');
    execFileSync('unzip', ['-tq', file]);
    expect(execFileSync('unzip', ['-p', file, 'manifest.json'], { encoding: 'utf8' })).toBe('{"hello":"wörld"}');
  });

  it('refuses unsafe or duplicate names', () => {
    for (const name of ['', '/abs', '../up', 'a/../b', 'back\\slash'])
      expect(() => writeZip([{ name, data: 'x' }])).toThrow(/invalid zip entry name/);
    expect(() =>
      writeZip([
        { name: 'a', data: 'x' },
        { name: 'a', data: 'y' },
      ]),
    ).toThrow(/duplicate/);
  });
});
