// Which restores may start (src/browser/imports/restore-admission.ts): a user's share of running restores and the
// server's budget of dump bytes, both taken before a byte is read and given back at the end.
import { describe, expect, it } from 'vitest';
import { createRestoreAdmission } from '../../src/browser/imports/restore-admission.js';

describe('restore admission', () => {
  it('refuses a user past their share while another user fits beside them', () => {
    const admission = createRestoreAdmission({ bytesMax: 100, perUser: 1 });
    const first = admission.admit('alice', 40);
    expect('release' in first).toBe(true);
    expect(admission.admit('alice', 10)).toEqual({ refused: 'user' });
    const other = admission.admit('bob', 60);
    expect('release' in other).toBe(true);
    expect(admission.heldBytes()).toBe(100);
  });

  it('refuses what does not fit the budget now, and what never can', () => {
    const admission = createRestoreAdmission({ bytesMax: 100, perUser: 2 });
    const first = admission.admit('alice', 70);
    expect(admission.admit('bob', 31)).toEqual({ refused: 'server' });
    // A refusal for the budget takes nothing of the user's share.
    expect(admission.admit('bob', 101)).toEqual({ refused: 'too-large' });
    if ('release' in first) first.release();
    const next = admission.admit('bob', 31);
    const second = admission.admit('bob', 69);
    expect(['release' in next, 'release' in second]).toEqual([true, true]);
    expect(admission.admit('bob', 0)).toEqual({ refused: 'user' });
  });

  it('gives back the bytes and the share once, however often released', () => {
    const admission = createRestoreAdmission({ bytesMax: 100, perUser: 1 });
    const first = admission.admit('alice', 50);
    if (!('release' in first)) throw new Error('refused');
    first.release();
    first.release();
    expect(admission.heldBytes()).toBe(0);
    const again = admission.admit('alice', 100);
    expect('release' in again).toBe(true);
    expect(admission.heldBytes()).toBe(100);
  });
});
