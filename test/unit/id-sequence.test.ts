import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { idSequence } from '../../src/lib/id-sequence.js';

describe('idSequence', () => {
  it('gives UUID-shaped ids (valid as RFC 4122 version 4), each different', () => {
    const next = idSequence();
    const ids = Array.from({ length: 1000 }, () => next());
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids.slice(0, 20)) expect(z.uuid().safeParse(id).success).toBe(true);
    expect(ids[0]!.slice(-12)).toBe('000000000000');
    expect(ids[999]!.slice(-12)).toBe('0000000003e7');
  });

  it('draws a different random prefix for each sequence (each process, each replica)', () => {
    const prefixes = new Set(Array.from({ length: 50 }, () => idSequence()().slice(0, 24)));
    expect(prefixes.size).toBe(50);
  });
});
