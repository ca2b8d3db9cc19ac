// Service accounts: admin-API identities for automation, each holding one role, with tokens (shown once, stored as (one file because accounts and their tokens share the escalation rule and one store)
// hashes) that authenticate as `Authorization: Bearer gdbsa_…`. Management follows the escalation rule (grantCheckOf,
// admin/permissions/permissions.ts);
// authentication answers from memory while the copy is fresh, so a token's permission check costs what a session's
// does (bench/run.ts), and a change made on any replica is announced to all (service-account-store.ts).
import { randomUUID } from 'node:crypto';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
} from '../../http/http-errors.js';
import type { GrantCheck, PermissionRule, RoleName } from '../permissions/permissions.js';
import type { Settings } from '../settings/schemas.js';
import {
  MAX_SERVICE_ACCOUNTS,
  MAX_TOKENS_PER_ACCOUNT,
  type CreateServiceAccount,
  type CreateToken,
  type ServiceAccountView,
  type TokenView,
  type UpdateServiceAccount,
} from './schemas.js';
import type { BootstrapAccount } from '../../lib/service-accounts-bootstrap.js';
import type { ServiceAccountStore, StoredServiceAccount, StoredToken } from './service-account-store.js';
import {
  addressAllowed,
  createTokenHashes,
  newTokenId,
  newTokenText,
  sameHash,
  tokenHashOf,
  type TokenHash,
  tokenHash,
} from '../../lib/service-account-tokens.js';

/** What a token-authenticated request acts as (request.sessionUser, with the account and token named). */
export interface ServiceAccountCaller {
  id: string;
  email: string;
  name: string;
  role: RoleName;
  provider: 'serviceaccount';
  mustChangePassword: false;
  serviceAccount: { id: string; name: string; tokenId: string };
}

const DAY_MS = 86_400_000;
/** A token's last use is written at most this often (a write per request would load the store and every replica). */
export const LAST_USED_INTERVAL_MS = 60_000;
export const INVALID_TOKEN = 'Invalid, expired or revoked token';
export const SERVICE_ACCOUNTS_OFF = 'Service accounts are turned off (settings: service_accounts.enabled)';

export interface ServiceAccountServiceOptions {
  store: ServiceAccountStore;
  now: () => number;
  /** The settings in force, without a promise while they are fresh (settings.inForce). */
  settings: () => Settings | Promise<Settings>;
  /** A role's rules (context.rbac.rulesOf): what the escalation rule compares. */
  rulesOf: (role: RoleName) => Promise<readonly PermissionRule[]>;
  roleExists: (role: RoleName) => Promise<boolean>;
  logger: { warn(fields: object, message: string): void };
}

/** What a bootstrap did: accounts created, accounts changed, and declared tokens already past their expiry. */
export interface BootstrapOutcome {
  created: string[];
  changed: string[];
  expired: string[];
}

/** Who the bootstrap's accounts and tokens are created by. */
export const BOOTSTRAP_ACTOR = 'bootstrap (SERVICE_ACCOUNTS_BOOTSTRAP)';

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}

/** `accounts` as the bootstrap declares them (pure but for new ids): see applyBootstrap. */
function reconcile(
  accounts: readonly StoredServiceAccount[],
  declared: readonly BootstrapAccount[],
  at: number,
): BootstrapOutcome & { accounts: StoredServiceAccount[] } {
  const created: string[] = [];
  const changed: string[] = [];
  const expired: string[] = [];
  const stamp = new Date(at).toISOString();
  const next = [...accounts];
  for (const want of declared) {
    const index = next.findIndex((account) => account.name === want.name);
    const before: StoredServiceAccount | undefined = next[index];
    let dirty = false;
    const tokens = [...(before?.tokens ?? [])];
    for (const token of want.tokens) {
      if (Date.parse(token.expiresAt) <= at) expired.push(`${want.name}/${token.name}`);
      const hash = tokenHash(token.text);
      const kept = tokens.findIndex((candidate) => candidate.name === token.name);
      const old = tokens[kept];
      const fields = {
        expiresAt: token.expiresAt,
        ...(token.allowedCidrs ? { allowedCidrs: token.allowedCidrs } : {}),
      };
      if (old && old.hash === hash) {
        if (old.expiresAt === fields.expiresAt && sameList(old.allowedCidrs, fields.allowedCidrs)) continue;
        const { allowedCidrs: _dropped, ...rest } = old;
        tokens[kept] = { ...rest, ...fields };
      } else {
        const fresh: StoredToken = {
          id: newTokenId(),
          name: token.name,
          hash,
          createdAt: stamp,
          createdBy: BOOTSTRAP_ACTOR,
          ...fields,
        };
        if (old) tokens[kept] = fresh;
        else tokens.push(fresh);
      }
      dirty = true;
    }
    const description = want.description ?? before?.description;
    const account: StoredServiceAccount = {
      id: before?.id ?? randomUUID(),
      name: want.name,
      ...(description !== undefined ? { description } : {}),
      role: want.role,
      disabled: want.disabled ?? before?.disabled ?? false,
      createdAt: before?.createdAt ?? stamp,
      createdBy: before?.createdBy ?? BOOTSTRAP_ACTOR,
      tokens,
    };
    if (!before) {
      created.push(want.name);
      next.push(account);
    } else if (
      dirty ||
      before.role !== account.role ||
      before.description !== account.description ||
      before.disabled !== account.disabled
    ) {
      changed.push(want.name);
      next[index] = account;
    }
  }
  return { created, changed, expired, accounts: next };
}

export const actorOf = (account: Pick<StoredServiceAccount, 'name'>) => `serviceaccount:${account.name}`;

export function toServiceAccountView(account: StoredServiceAccount): ServiceAccountView {
  return {
    id: account.id,
    name: account.name,
    ...(account.description ? { description: account.description } : {}),
    role: account.role,
    disabled: account.disabled,
    createdAt: account.createdAt,
    createdBy: account.createdBy,
    tokens: account.tokens.length,
  };
}

export function toTokenView(token: StoredToken, now: number): TokenView {
  return {
    id: token.id,
    name: token.name,
    createdAt: token.createdAt,
    createdBy: token.createdBy,
    expiresAt: token.expiresAt,
    expired: Date.parse(token.expiresAt) <= now,
    allowedCidrs: token.allowedCidrs ?? [],
    ...(token.lastUsedAt ? { lastUsedAt: token.lastUsedAt } : {}),
    ...(token.lastUsedIp ? { lastUsedIp: token.lastUsedIp } : {}),
  };
}

interface IndexedToken {
  account: StoredServiceAccount;
  token: StoredToken;
  hash: TokenHash;
  expiresAtMs: number;
}

/** Each list's tokens by hash, made once per list the store hands out. */
const hashIndexes = new WeakMap<readonly StoredServiceAccount[], ReadonlyMap<string, IndexedToken>>();
function byHash(accounts: readonly StoredServiceAccount[]): ReadonlyMap<string, IndexedToken> {
  let index = hashIndexes.get(accounts);
  if (!index) {
    const built = new Map<string, IndexedToken>();
    for (const account of accounts)
      for (const token of account.tokens)
        built.set(token.hash, {
          account,
          token,
          hash: tokenHashOf(token.hash),
          expiresAtMs: Date.parse(token.expiresAt),
        });
    hashIndexes.set(accounts, built);
    index = built;
  }
  return index;
}

/** One frozen caller per stored token of a stored account (stored objects are replaced, never changed in place). */
const callers = new WeakMap<StoredToken, ServiceAccountCaller>();
function callerOf({ account, token }: IndexedToken): ServiceAccountCaller {
  let caller = callers.get(token);
  if (!caller) {
    caller = Object.freeze({
      id: `serviceaccount:${account.id}`,
      email: actorOf(account),
      name: account.name,
      role: account.role,
      provider: 'serviceaccount' as const,
      mustChangePassword: false as const,
      serviceAccount: Object.freeze({ id: account.id, name: account.name, tokenId: token.id }),
    });
    callers.set(token, caller);
  }
  return caller;
}

/** Checked token texts kept in memory with their hash (as the sessions keep verified cookies). */
const CHECKED_TOKENS = 10_000;

export function createServiceAccountService(options: ServiceAccountServiceOptions) {
  const { store, now } = options;
  const hashes = createTokenHashes(CHECKED_TOKENS);
  /** When each token's last use was last written (this replica), so it is written at most once a minute. */
  const lastWritten = new Map<string, number>();

  const find = (accounts: readonly StoredServiceAccount[], id: string) => {
    const account = accounts.find((candidate) => candidate.id === id || candidate.name === id);
    if (!account) throw new NotFoundError(`Service account ${id} not found`);
    return account;
  };

  async function knownRole(role: string): Promise<string> {
    if (!(await options.roleExists(role)))
      throw new BadRequestError(`Unknown role ${role}; the roles are listed by GET /api/rbac/roles`);
    return role;
  }

  /** The caller acts on `account` only when it holds all of the account's role (it could act as the account). */
  async function mayManage(account: StoredServiceAccount, may: GrantCheck) {
    may(await options.rulesOf(account.role), `service account ${account.name}'s role ${account.role}`);
  }

  const change = (id: string, apply: (account: StoredServiceAccount) => StoredServiceAccount) =>
    store.update((accounts) => {
      const target = find(accounts, id);
      const after = apply(target);
      return { accounts: accounts.map((account) => (account === target ? after : account)), result: after };
    });

  function resolve(
    text: string,
    address: string,
    settings: Settings,
  ): ServiceAccountCaller | Promise<ServiceAccountCaller> {
    if (!settings.service_accounts.enabled) throw new UnauthorizedError(SERVICE_ACCOUNTS_OFF);
    const hash = hashes.hashOf(text);
    if (hash === undefined) throw new UnauthorizedError(INVALID_TOKEN);
    // No closure on the usual path (the accounts in memory): a token's check is meant to cost what a session's does.
    const inMemory = store.listFromMemory();
    return inMemory ? admit(inMemory, hash, address) : store.list().then((accounts) => admit(accounts, hash, address));
  }

  function admit(accounts: readonly StoredServiceAccount[], hash: TokenHash, address: string): ServiceAccountCaller {
    const found = byHash(accounts).get(hash.hex);
    // The map is keyed by the hash, which a guesser cannot steer; the stored hash is still compared in constant time.
    if (!found || !sameHash(found.hash, hash) || found.account.disabled || found.expiresAtMs <= now())
      throw new UnauthorizedError(INVALID_TOKEN);
    if (!addressAllowed(found.token.allowedCidrs ?? [], address)) throw new UnauthorizedError(INVALID_TOKEN);
    noteUse(found, address);
    return callerOf(found);
  }

  /** Writes the token's last use when the last write from this replica is over a minute old; never fails a request. */
  function noteUse({ account, token }: IndexedToken, address: string): void {
    const at = now();
    const last = lastWritten.get(token.id) ?? (token.lastUsedAt ? Date.parse(token.lastUsedAt) : 0);
    if (at - last < LAST_USED_INTERVAL_MS) return;
    lastWritten.set(token.id, at);
    if (lastWritten.size > 10_000) lastWritten.delete(lastWritten.keys().next().value!);
    const stamp = new Date(at).toISOString();
    store
      .update(
        (accounts) => ({
          accounts: accounts.map((candidate) =>
            candidate.id !== account.id
              ? candidate
              : {
                  ...candidate,
                  tokens: candidate.tokens.map((kept) =>
                    kept.id === token.id ? { ...kept, lastUsedAt: stamp, lastUsedIp: address } : kept,
                  ),
                },
          ),
          result: undefined,
        }),
        { announce: false },
      )
      .catch((error: unknown) =>
        options.logger.warn(
          { reason: error instanceof Error ? error.message : String(error), serviceAccount: account.name },
          "could not record a service account token's last use",
        ),
      );
  }

  return {
    async list(): Promise<StoredServiceAccount[]> {
      return store.list();
    },

    /**
     * When the first token that still works stops working (ms since the epoch; 0 when none would): the tokens of
     * enabled accounts that have not expired yet, while service accounts are on. What the token-expiry metric reports.
     */
    async nextTokenExpiry(): Promise<number> {
      if (!(await options.settings()).service_accounts.enabled) return 0;
      const at = now();
      let next = 0;
      for (const account of await store.list()) {
        if (account.disabled) continue;
        for (const token of account.tokens) {
          const expires = Date.parse(token.expiresAt);
          if (expires > at && (next === 0 || expires < next)) next = expires;
        }
      }
      return next;
    },

    async get(id: string): Promise<StoredServiceAccount> {
      return find(await store.list(), id);
    },

    async create(input: CreateServiceAccount, createdBy: string, may: GrantCheck): Promise<StoredServiceAccount> {
      const role = await knownRole(input.role);
      may(await options.rulesOf(role), `role ${role}`);
      return store.update((accounts) => {
        if (accounts.some((account) => account.name === input.name))
          throw new ConflictError(`Service account ${input.name} already exists`);
        if (accounts.length >= MAX_SERVICE_ACCOUNTS)
          throw new BadRequestError(`At most ${MAX_SERVICE_ACCOUNTS} service accounts; delete one first`);
        const account: StoredServiceAccount = {
          id: randomUUID(),
          name: input.name,
          ...(input.description ? { description: input.description } : {}),
          role,
          disabled: input.disabled ?? false,
          createdAt: new Date(now()).toISOString(),
          createdBy,
          tokens: [],
        };
        return { accounts: [...accounts, account], result: account };
      });
    },

    /**
     * Description, role and disabled flag; disabling stops every token at once, on every replica. `callerAccountId`
     * is the caller's own service account (a token's request): like a user, an account never changes its own role.
     */
    async update(
      id: string,
      changes: UpdateServiceAccount,
      may: GrantCheck,
      callerAccountId?: string,
    ): Promise<StoredServiceAccount> {
      const target = await this.get(id);
      const role = changes.role === undefined ? undefined : await knownRole(changes.role);
      if (role !== undefined && role !== target.role && target.id === callerAccountId)
        throw new ForbiddenError(
          'A service account cannot change its own role: a user or another account with the right must do it',
        );
      await mayManage(target, may);
      if (role !== undefined) may(await options.rulesOf(role), `role ${role}`);
      return change(id, (before) => ({
        ...before,
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        ...(role !== undefined ? { role } : {}),
        ...(changes.disabled !== undefined ? { disabled: changes.disabled } : {}),
      }));
    },

    async remove(id: string, may: GrantCheck): Promise<StoredServiceAccount> {
      await mayManage(await this.get(id), may);
      return store.update((accounts) => {
        const target = find(accounts, id);
        return { accounts: accounts.filter((account) => account !== target), result: target };
      });
    },

    async createToken(
      id: string,
      input: CreateToken,
      createdBy: string,
      may: GrantCheck,
    ): Promise<{ account: StoredServiceAccount; token: StoredToken; key: string }> {
      const account = await this.get(id);
      await mayManage(account, may);
      const settings = await options.settings();
      const maxDays = settings.service_accounts.max_token_lifetime_days;
      if (input.expiresInDays > maxDays)
        throw new BadRequestError(
          `expiresInDays must be at most ${maxDays} (settings: service_accounts.max_token_lifetime_days)`,
        );
      const key = newTokenText();
      const at = now();
      const token: StoredToken = {
        id: newTokenId(),
        name: input.name,
        hash: tokenHash(key),
        createdAt: new Date(at).toISOString(),
        createdBy,
        expiresAt: new Date(at + input.expiresInDays * DAY_MS).toISOString(),
        ...(input.allowedCidrs && input.allowedCidrs.length > 0 ? { allowedCidrs: input.allowedCidrs } : {}),
      };
      const updated = await change(id, (before) => {
        if (before.tokens.length >= MAX_TOKENS_PER_ACCOUNT)
          throw new BadRequestError(`At most ${MAX_TOKENS_PER_ACCOUNT} tokens per service account; revoke one first`);
        if (before.tokens.some((kept) => kept.name === input.name))
          throw new ConflictError(`Service account ${before.name} already has a token named ${input.name}`);
        return { ...before, tokens: [...before.tokens, token] };
      });
      return { account: updated, token, key };
    },

    /** Revokes a token: it stops at once on every replica. */
    async revokeToken(id: string, tokenId: string, may: GrantCheck): Promise<StoredServiceAccount> {
      await mayManage(await this.get(id), may);
      return change(id, (before) => {
        if (!before.tokens.some((token) => token.id === tokenId))
          throw new NotFoundError(`Token ${tokenId} of service account ${before.name} not found`);
        return { ...before, tokens: before.tokens.filter((token) => token.id !== tokenId) };
      });
    },

    /**
     * Makes the store hold what SERVICE_ACCOUNTS_BOOTSTRAP declares (bootstrap.ts): missing accounts and tokens are
     * created, declared fields set again, a token whose text changed replaced; nothing else is touched, and nothing
     * is written when all is as declared (every replica runs it at start). A role that does not exist, or an expiry
     * beyond service_accounts.max_token_lifetime_days, refuses the whole declaration (the server does not start).
     */
    async applyBootstrap(declared: readonly BootstrapAccount[]): Promise<BootstrapOutcome> {
      if (declared.length === 0) return { created: [], changed: [], expired: [] };
      const maxDays = (await options.settings()).service_accounts.max_token_lifetime_days;
      const at = now();
      for (const account of declared) {
        await knownRole(account.role);
        for (const token of account.tokens)
          if (Date.parse(token.expiresAt) - at > maxDays * DAY_MS)
            throw new BadRequestError(
              `Service account ${account.name}'s token ${token.name} expires after ${maxDays} days from now (settings: service_accounts.max_token_lifetime_days)`,
            );
      }
      const summary = ({ created, changed, expired }: BootstrapOutcome): BootstrapOutcome => ({
        created,
        changed,
        expired,
      });
      const outcome = reconcile(await store.list(), declared, at);
      if (outcome.created.length === 0 && outcome.changed.length === 0) return summary(outcome);
      return store.update((accounts) => {
        const again = reconcile(accounts, declared, at);
        return { accounts: again.accounts, result: summary(again) };
      });
    },

    /**
     * The account a bearer token authenticates as, from `address`: 401 for every kind of failure alike (unknown,
     * revoked, expired, disabled account, address not allowed). Without a promise while settings and accounts are
     * fresh in memory; throws synchronously then.
     */
    authenticate(text: string, address: string): ServiceAccountCaller | Promise<ServiceAccountCaller> {
      const settings = options.settings();
      return settings instanceof Promise
        ? settings.then((fresh) => resolve(text, address, fresh))
        : resolve(text, address, settings);
    },
  };
}

export type ServiceAccountService = ReturnType<typeof createServiceAccountService>;
