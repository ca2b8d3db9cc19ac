import { describe, expect, it } from 'vitest';
import {
  keySlot,
  nodeAddress,
  parseClusterSlots,
  redirectionOf,
  routingKey,
  sameSlotName,
} from '../../src/lib/cluster-slots.js';

describe('keySlot', () => {
  it('is CRC16/XMODEM modulo 16384, as the cluster specification defines it', () => {
    // The specification's check value for "123456789" (0x31c3), modulo 16384.
    expect(keySlot('123456789')).toBe(0x31c3 % 16384);
    // Slots a real Valkey cluster answered to CLUSTER KEYSLOT.
    expect(keySlot('g1')).toBe(13519);
    expect(keySlot('g2')).toBe(1196);
    expect(keySlot('x')).toBe(16287);
    expect(keySlot('g1copy')).toBe(9045);
  });

  it('hashes only a non-empty hash tag: the text between the first { and the next }', () => {
    expect(keySlot('{g1}copy')).toBe(keySlot('g1'));
    expect(keySlot('a{g1}b{x}')).toBe(keySlot('g1'));
    expect(keySlot('{}g1')).toBe(keySlot(Buffer.from('{}g1')));
    expect(keySlot('{}g1')).not.toBe(keySlot('g1'));
    expect(keySlot('{g1')).toBe(keySlot(Buffer.from('{g1')));
    // UTF-8 bytes, not UTF-16 code units.
    expect(keySlot('é')).toBe(10180);
    expect(keySlot(Buffer.from('é', 'utf8'))).toBe(10180);
    expect(keySlot(new Uint8Array(Buffer.from('a{é}b', 'utf8')))).toBe(10180);
  });

  it('suggests a name in the source slot', () => {
    expect(sameSlotName('people', 'people-copy')).toBe('{people}people-copy');
    expect(keySlot(sameSlotName('people', 'other'))).toBe(keySlot('people'));
    expect(sameSlotName('{team}a', 'b{x}')).toBe('{team}bx');
    expect(keySlot(sameSlotName('{team}a', 'b{x}'))).toBe(keySlot('{team}a'));
  });
});

describe('routingKey', () => {
  it('names the key of graph and key commands, none for keyless ones', () => {
    expect(routingKey(['GRAPH.QUERY', 'g', 'RETURN 1'])).toBe('g');
    expect(routingKey(['graph.ro_query', 'g', 'RETURN 1'])).toBe('g');
    expect(routingKey(['GRAPH.MEMORY', 'USAGE', 'g'])).toBe('g');
    expect(routingKey(['GRAPH.CONSTRAINT', 'CREATE', 'g', 'UNIQUE'])).toBe('g');
    expect(routingKey(['RENAMENX', 'a', 'b'])).toBe('a');
    expect(routingKey(['DUMP', 'g'])).toBe('g');
    for (const args of [
      ['GRAPH.LIST'],
      ['ACL', 'SETUSER', 'u'],
      ['GRAPH.CONFIG', 'GET', '*'],
      ['INFO'],
      ['GRAPH.QUERY'],
    ])
      expect(routingKey(args)).toBeUndefined();
  });
});

describe('parseClusterSlots', () => {
  const reply = [
    [0, 5460, ['10.0.0.1', 6379, 'id1'], ['10.0.0.4', 6379, 'id4']],
    [5461, 10922, ['', 6380, 'id2']],
    [10923, 16382, ['10.0.0.3', 6379, 'id3']],
    [16383, 16383, ['10.0.0.1', 6379, 'id1'], ['10.0.0.4', 6379, 'id4']],
  ];

  it('maps every slot to its primary, lists replicas once, and fills an unknown host with the one asked', () => {
    const map = parseClusterSlots(reply, 'seed.db');
    expect(map.primaries).toEqual([
      { host: '10.0.0.1', port: 6379 },
      { host: 'seed.db', port: 6380 },
      { host: '10.0.0.3', port: 6379 },
    ]);
    expect(map.replicas).toEqual([{ host: '10.0.0.4', port: 6379 }]);
    expect(map.replicasOf).toEqual([[{ host: '10.0.0.4', port: 6379 }], [], []]);
    expect([map.slots[0], map.slots[5460], map.slots[5461], map.slots[16382], map.slots[16383]]).toEqual([
      0, 0, 1, 2, 0,
    ]);
  });

  it('leaves uncovered slots unassigned and refuses malformed replies', () => {
    const map = parseClusterSlots([[0, 99, ['h', 1, 'id']]], 'seed');
    expect(map.slots[100]).toBe(-1);
    expect(() => parseClusterSlots('nope', 's')).toThrow('did not answer a list');
    expect(() => parseClusterSlots([], 's')).toThrow('serves no slot');
    expect(() => parseClusterSlots([[5, 2, ['h', 1]]], 's')).toThrow('invalid slot range');
    expect(() => parseClusterSlots([[0, 1, ['h', 0]]], 's')).toThrow('invalid port');
  });
});

describe('redirectionOf', () => {
  it('reads MOVED and ASK with IPv4, IPv6 and empty hosts', () => {
    expect(redirectionOf('MOVED 3999 127.0.0.1:6381')).toEqual({
      kind: 'MOVED',
      slot: 3999,
      node: { host: '127.0.0.1', port: 6381 },
    });
    expect(redirectionOf('ASK 1 [::1]:7000')).toEqual({ kind: 'ASK', slot: 1, node: { host: '::1', port: 7000 } });
    expect(redirectionOf('MOVED 2 :7000')).toEqual({ kind: 'MOVED', slot: 2, node: { host: '', port: 7000 } });
    expect(nodeAddress({ host: '::1', port: 7000 })).toBe('[::1]:7000');
    for (const message of ['ERR unknown', 'MOVED 3999', 'MOVED 99999 h:1', 'ASK 1 h:0', 'CROSSSLOT Keys'])
      expect(redirectionOf(message)).toBeUndefined();
  });
});
