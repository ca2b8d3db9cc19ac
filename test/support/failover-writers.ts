// Clients writing through the API in a loop while a test kills a primary: every write is numbered per client, so
// the test can tell when each client recovered and check that every acknowledged write survived the failover.
import { expect } from 'vitest';
import { sleep } from './wait.js';

export interface FailoverWriters {
  /** The numbers of each client's writes the API answered 200. */
  acknowledged: number[][];
  /** When each client first wrote again after the kill (0 until then). */
  recoveredAt: number[];
  killedAt(): number;
  promotedAt(): number;
  /** Call right after killing the primary. */
  markKilled(): void;
  /** Call once the replica has been promoted. */
  markPromoted(): void;
  stop(): Promise<void>;
}

/**
 * `write(client, seq)` sends one write and answers its HTTP status (throwing on a network error, which the counts
 * then expose). A failed write must have one of `failureStatuses`. A client counts as recovered at its first write
 * answered after the promotion, or after a failure seen since the kill.
 */
export function startFailoverWriters(
  clients: number,
  write: (client: number, seq: number) => Promise<number>,
  failureStatuses: number[] = [503],
): FailoverWriters {
  const acknowledged: number[][] = Array.from({ length: clients }, () => []);
  const recoveredAt: number[] = Array.from({ length: clients }, () => 0);
  let killedAt = 0;
  let promotedAt = 0;
  let stopped = false;
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let seq = 0; !stopped; seq++) {
      const failedSinceKill = killedAt > 0 && recoveredAt[client] === 0;
      try {
        const status = await write(client, seq);
        if (status === 200) {
          acknowledged[client]!.push(seq);
          if (killedAt > 0 && recoveredAt[client] === 0 && (failedSinceKill || promotedAt > 0))
            recoveredAt[client] = Date.now();
        } else expect(failureStatuses).toContain(status);
      } catch {
        // the server answers every request; a network error would be a bug the counts expose
      }
      // A client waiting for the new primary does not spin.
      if (killedAt > 0 && recoveredAt[client] === 0) await sleep(50);
    }
  });
  return {
    acknowledged,
    recoveredAt,
    killedAt: () => killedAt,
    promotedAt: () => promotedAt,
    markKilled() {
      killedAt = Date.now();
    },
    markPromoted() {
      promotedAt = Date.now();
    },
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** The acknowledged writes (`client:seq`) that are not among the stored `[client, seq]` rows. */
export function missingWrites(acknowledged: number[][], stored: [number, number][]): string[] {
  const have = new Set(stored.map(([client, seq]) => `${client}:${seq}`));
  return acknowledged.flatMap((seqs, client) =>
    seqs.filter((seq) => !have.has(`${client}:${seq}`)).map((seq) => `${client}:${seq}`),
  );
}
