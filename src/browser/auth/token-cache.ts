// Tokens that passed the full check (signature, stored hash, expiry, revocation), kept in memory so the next
// request with the same token needs no JWT verification, store read or password decryption.
//
// Revocation stays immediate: every replica subscribes to the store's revocation channel and drops the entry
// when a revocation is announced. The cache is used only while that subscription is proven live (see
// platform/redis/revocation-channel.ts); when it drops, every entry goes, because announcements may have been missed.
import type { Principal } from './principal.js';

export interface CachedToken {
  principal: Principal;
  /** Epoch milliseconds, or null for a token without expiry. */
  expiresAt: number | null;
  lastUsed: number | null;
  cachedAt: number;
}

export interface TokenCacheOptions {
  /** How long an entry may be served without re-reading the store; 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
  now: () => number;
}

export class TokenCache {
  /** Keyed by the token's SHA-256, so the cache never holds a usable token. */
  private readonly entries = new Map<string, CachedToken>();
  private readonly hashById = new Map<string, string>();
  private live = false;
  /**
   * Bumped on every revocation and every loss of the channel. A lookup that started before a bump must not
   * cache what it read: the store may have answered before the revocation it has not seen yet.
   */
  private epoch = 0;

  constructor(private readonly options: TokenCacheOptions) {}

  get enabled(): boolean {
    return this.live && this.options.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The epoch to hand back to `add`, read before the store is. */
  begin(): number {
    return this.epoch;
  }

  get(tokenHash: string): CachedToken | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    const now = this.options.now();
    if (now - entry.cachedAt >= this.options.ttlMs || (entry.expiresAt !== null && entry.expiresAt <= now)) {
      this.delete(tokenHash, entry.principal.tokenId);
      return undefined;
    }
    return entry;
  }

  add(tokenHash: string, entry: Omit<CachedToken, 'cachedAt'>, epoch: number): void {
    if (!this.enabled || epoch !== this.epoch) return;
    if (this.entries.size >= this.options.maxEntries) {
      // Maps iterate in insertion order: the first entry is the oldest.
      const [oldestHash, oldest] = this.entries.entries().next().value as [string, CachedToken];
      this.delete(oldestHash, oldest.principal.tokenId);
    }
    this.entries.set(tokenHash, { ...entry, cachedAt: this.options.now() });
    this.hashById.set(entry.principal.tokenId, tokenHash);
  }

  /** A revocation was announced (or made here). */
  revoked(tokenId: string): void {
    this.epoch++;
    const hash = this.hashById.get(tokenId);
    if (hash !== undefined) this.delete(hash, tokenId);
  }

  /** The revocation channel is live (again): start from an empty cache, since announcements may have been missed. */
  channelUp(): void {
    this.clear();
    this.live = true;
  }

  channelDown(): void {
    this.live = false;
    this.clear();
  }

  private clear(): void {
    this.epoch++;
    this.entries.clear();
    this.hashById.clear();
  }

  private delete(tokenHash: string, tokenId: string): void {
    this.entries.delete(tokenHash);
    this.hashById.delete(tokenId);
  }
}
