import { describe, expect, it } from 'vitest';
import {
  indexesOf,
  matches,
  parseDateBound,
  planQuery,
  type AuditEntry,
} from '../../src/platform/stores/audit-query.js';
import { pageCommands } from '../../src/platform/stores/audit-store.js';

const page = { limit: 50, offset: 0 };
const entry: AuditEntry = {
  id: 'e1',
  time: Date.parse('2026-01-02T03:04:05Z'),
  userId: 'root@corp.example',
  action: 'cluster.restart',
  resourceType: 'cluster',
  resourceName: 'db1',
  namespace: 'graphdb',
  cluster: 'db1',
  result: 'success',
  message: 'Accepted',
  requestId: 'r1',
};

describe('audit query planning', () => {
  it('reads the whole log without filters, and one index per given filter', () => {
    expect(planQuery({}, page)).toEqual({
      indexes: [],
      min: Number.NEGATIVE_INFINITY,
      max: Number.POSITIVE_INFINITY,
      ...page,
      empty: false,
    });
    expect(planQuery({ userId: 'Root@Corp.Example', result: 'failure' }, page).indexes).toEqual([
      { family: 'user', value: 'root@corp.example' },
      { family: 'result', value: 'failure' },
    ]);
    expect(planQuery({ cluster: { namespace: 'ns', name: 'db1' } }, page).indexes).toEqual([
      { family: 'cluster', value: 'ns/db1' },
    ]);
  });

  it('knows an inverted time range matches nothing', () => {
    expect(planQuery({ from: 10, to: 5 }, page).empty).toBe(true);
    expect(planQuery({ from: 5, to: 5 }, page).empty).toBe(false);
  });

  it('pages by rank without a time range, by score with one', () => {
    const plan = planQuery({}, { limit: 50, offset: 100 });
    expect(pageCommands('k', plan)).toEqual([
      ['ZCARD', 'k'],
      ['ZRANGE', 'k', '100', '149', 'REV'],
    ]);
    expect(pageCommands('k', planQuery({ from: 1 }, { limit: 50, offset: 0 }))).toEqual([
      ['ZCOUNT', 'k', '1', '+inf'],
      ['ZRANGE', 'k', '+inf', '1', 'BYSCORE', 'REV', 'LIMIT', '0', '50'],
    ]);
  });

  it('matches entries as the indexes do', () => {
    expect(indexesOf(entry)).toContainEqual({ family: 'cluster', value: 'graphdb/db1' });
    expect(matches(entry, planQuery({ userId: 'ROOT@corp.example', action: 'cluster.restart' }, page))).toBe(true);
    expect(matches(entry, planQuery({ result: 'failure' }, page))).toBe(false);
    expect(matches(entry, planQuery({ from: entry.time + 1 }, page))).toBe(false);
    expect(matches(entry, planQuery({ to: entry.time }, page))).toBe(true);
  });
});

describe('audit date bounds', () => {
  it('reads dates as whole UTC days and date-times without a zone as UTC', () => {
    expect(parseDateBound('2026-01-02', 'start')).toBe(Date.parse('2026-01-02T00:00:00Z'));
    expect(parseDateBound('2026-01-02', 'end')).toBe(Date.parse('2026-01-03T00:00:00Z') - 1);
    expect(parseDateBound('2026-01-02T03:04:05', 'start')).toBe(Date.parse('2026-01-02T03:04:05Z'));
    expect(parseDateBound('2026-01-02T03:04:05+02:00', 'end')).toBe(Date.parse('2026-01-02T01:04:05Z'));
  });

  it('refuses what is not a date', () => {
    for (const text of ['yesterday', '2026-13-45', '1700000000', '', '2026-01-02T25:00:00Z'])
      expect(parseDateBound(text, 'start'), text).toBeUndefined();
  });
});
