// Which restores of an export may start now. A restore takes one of its user's RESTORES_PER_USER and its dump's bytes
// from RESTORE_BYTES_MAX, the budget of every restore under way, before a byte of the dump is read; both are given
// back when it ends. One user cannot hold the whole budget while another user's restore fits beside it.
import { ConcurrencyLimit } from '../../lib/concurrency-limit.js';

export type RestoreRefusal = 'too-large' | 'user' | 'server';

export interface RestoreBounds {
  /** Bytes of dumps being restored at once, server-wide (RESTORE_BYTES_MAX). */
  bytesMax: number;
  /** Restores one user runs at once (RESTORES_PER_USER). */
  perUser: number;
}

export function createRestoreAdmission(bounds: RestoreBounds) {
  const perUser = new ConcurrencyLimit(bounds.perUser);
  let held = 0;
  return {
    /** A release function when the restore may start, else why not. Releasing twice is harmless. */
    admit(userId: string, bytes: number): { release: () => void } | { refused: RestoreRefusal } {
      if (bytes > bounds.bytesMax) return { refused: 'too-large' };
      const releaseUser = perUser.tryAcquire(userId);
      if (!releaseUser) return { refused: 'user' };
      if (held + bytes > bounds.bytesMax) {
        releaseUser();
        return { refused: 'server' };
      }
      held += bytes;
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          held -= bytes;
          releaseUser();
        },
      };
    },
    /** Bytes of dumps held by restores under way. */
    heldBytes: () => held,
  };
}

export type RestoreAdmission = ReturnType<typeof createRestoreAdmission>;
