import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { writeZip } from '../../src/admin/diagnostics/zip-writer.js';
import { readZip } from '../support/zip-reader.js';

describe('writeZip', () => {
  const entries = [
    { name: 'manifest.json', data: JSON.stringify({ hello: 'wörld' }) },
    { name: 'logs/server.log', data: 'line\n'.repeat(2000) },
    { name: 'random.bin', data: randomBytes(4096) },
    { name: 'empty.txt', data: '' },
  ];

  it('writes every entry, deflated, in order, read back whole by an independent reader (sizes and CRC-32 checked)', async () => {
    const archive = writeZip(entries, new Date('2026-11-24T10:20:30Z'));
    const read = await readZip(archive);
    expect(read.map((entry) => entry.name)).toEqual(entries.map((entry) => entry.name));
    for (const [index, entry] of read.entries()) {
      const expected = entries[index]!.data;
      expect(entry.data.equals(typeof expected === 'string' ? Buffer.from(expected) : expected)).toBe(true);
    }
    expect(read.find((entry) => entry.name === 'logs/server.log')!.method).toBe(8);
    expect(archive.length).toBeLessThan(4096 + 2000);
  });

  it("is an archive Python's zipfile tests, lists with its time and mode, and reads", () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'zip-')), 'test.zip');
    writeFileSync(file, writeZip(entries, new Date('2026-11-24T10:20:30Z')));
    const script = [
      'import json, sys, zipfile',
      'z = zipfile.ZipFile(sys.argv[1])',
      'print(json.dumps({"bad": z.testzip(), "entries": [[i.filename, i.date_time[0], i.external_attr >> 16] for i in z.infolist()], "manifest": z.read("manifest.json").decode("utf-8")}))',
    ].join('\n');
    const report = JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as {
      bad: string | null;
      entries: [string, number, number][];
      manifest: string;
    };
    expect(report.bad).toBeNull();
    expect(report.entries).toEqual(entries.map((entry) => [entry.name, 2026, 0o100644]));
    expect(report.manifest).toBe('{"hello":"wörld"}');
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
