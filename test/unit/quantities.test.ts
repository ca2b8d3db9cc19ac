// The one Kubernetes quantity parser (src/platform/kubernetes/quantities.ts) and the forms its callers accept: what
// Kubernetes and metrics-server write (telemetry, requested resources), what a day-2 operation's body may name, a
// deployment's memory and a volume's size.
import { describe, expect, it } from 'vitest';
import { parseQuantity } from '../../src/platform/kubernetes/quantities.js';
import { requestedResources } from '../../src/admin/system/quantities.js';
import { quantityValue } from '../../src/admin/operations/operation-service.js';
import { memoryOf } from '../../src/admin/clusters/cluster-view.js';

describe('parseQuantity, as Kubernetes writes quantities', () => {
  it('reads what metrics-server and pod specs write', () => {
    expect(parseQuantity('250000000n')).toBeCloseTo(0.25);
    expect(parseQuantity('1500u')).toBeCloseTo(0.0015);
    expect(parseQuantity('500m')).toBe(0.5);
    expect(parseQuantity('2')).toBe(2);
    expect(parseQuantity('16384Ki')).toBe(16 * 2 ** 20);
    expect(parseQuantity('1Gi')).toBe(2 ** 30);
    expect(parseQuantity('0.5Gi')).toBe(2 ** 29);
    expect(parseQuantity('1G')).toBe(1e9);
    expect(parseQuantity('1e3')).toBe(1000);
    expect(parseQuantity(' 2Ki ')).toBe(2048);
    expect(parseQuantity('1Ei')).toBe(2 ** 60);
    expect(parseQuantity('0')).toBe(0);
  });

  it('answers undefined for what is not a quantity', () => {
    for (const bad of [undefined, '', 'lots', '-1', '1Zi', '1 Gi', '1.e3', '.5'])
      expect(parseQuantity(bad), String(bad)).toBeUndefined();
  });

  it('counts what is not a quantity as nothing requested', () => {
    const component = { cpu: 'lots', memory: '1 Gi', storage: '1Gi', replicas: 2 };
    expect(requestedResources([{ components: [component] }])).toEqual({ cpu: 0, memory: 0, storage: 2 * 2 ** 30 });
  });
});

describe('the forms callers accept', () => {
  it('a day-2 operation: plain decimals with the documented suffixes, more than zero', () => {
    expect(quantityValue('500m')).toBe(0.5);
    expect(quantityValue('4Gi')).toBe(4 * 2 ** 30);
    expect(quantityValue('1.5')).toBe(1.5);
    for (const refused of ['0', '0m', '1e3', ' 2', '2 ', '250n', '1u', '1K', '1E', '1Ei', '', 'abc'])
      expect(quantityValue(refused), refused).toBeUndefined();
  });

  it("a deployment's memory: bytes, k/M/G and Ki to Ti, rewritten in Gi or Mi when whole", () => {
    expect(memoryOf('1024Mi')).toBe('1Gi');
    expect(memoryOf('1.5Gi')).toBe('1536Mi');
    expect(memoryOf('1G')).toBe('1000000000');
    for (const refused of ['1e9', '1Pi', '1m', ' 1Gi']) expect(memoryOf(refused), refused).toBeUndefined();
  });
});

describe('requestedResources', () => {
  it('sums requests over replicas and shards', () => {
    const component = (cpu: string, memory: string, storage: string, replicas: number, shards?: number) => ({
      cpu,
      memory,
      storage,
      replicas,
      shards,
    });
    expect(
      requestedResources([
        { components: [component('500m', '1Gi', '10Gi', 2)] },
        { components: [component('1', '', '', 3, 3), component('', '', '', 1)] },
      ]),
    ).toEqual({ cpu: 10, memory: 2 * 2 ** 30, storage: 20 * 2 ** 30 });
  });
});
