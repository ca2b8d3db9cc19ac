// Which database servers a caller may make this server connect to. Token creation takes a host and port from an
// unauthenticated caller, so every connection to a user's database goes through here: the name is resolved once,
// the address is checked against DATABASE_HOSTS and the always-denied ranges, and that address is what is dialled.
import { commaSeparated } from '../../lib/comma-list.js';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { PortError } from '../port-errors.js';

export interface AllowedTarget {
  /** A host name (compared case-insensitively, before resolution) or an address or CIDR range. */
  host: string;
  port?: number;
}

export class TargetRefusedError extends PortError {
  constructor(readonly host: string) {
    super('forbidden', `Database host ${host} is not allowed on this server (see DATABASE_HOSTS)`);
    this.name = 'TargetRefusedError';
  }
}

/** Never a database: the cloud metadata service and other link-local addresses, unspecified and multicast ones. */
const ALWAYS_DENIED = new BlockList();
ALWAYS_DENIED.addSubnet('169.254.0.0', 16, 'ipv4');
ALWAYS_DENIED.addSubnet('0.0.0.0', 8, 'ipv4');
ALWAYS_DENIED.addSubnet('224.0.0.0', 4, 'ipv4');
ALWAYS_DENIED.addAddress('255.255.255.255', 'ipv4');
ALWAYS_DENIED.addSubnet('fe80::', 10, 'ipv6');
ALWAYS_DENIED.addAddress('::', 'ipv6');
ALWAYS_DENIED.addSubnet('ff00::', 8, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** `::ffff:127.0.0.1` is 127.0.0.1: check IPv4-mapped addresses as what they map to. */
function normalize(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export function isLoopback(address: string): boolean {
  const { address: plain, family } = normalize(address);
  return LOOPBACK.check(plain, family);
}

/**
 * One spelling per database host, for identities (which tokens an Admin token sees, whose account is protected):
 * lower case, IPv6 without brackets and in canonical form, IPv4-mapped addresses as IPv4, and every name or address
 * of this machine's loopback (`localhost`, 127.0.0.0/8, `::1`) as `127.0.0.1`, all of which reach the same server
 * here. Other names stay names: resolving them would let DNS choose an identity (see docs/decisions/token-creation-targets.md).
 */
export function canonicalDatabaseHost(host: string): string {
  const lower = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (lower === 'localhost' || lower === 'localhost.') return '127.0.0.1';
  if (isIP(lower) === 0) return lower;
  const { address, family } = normalize(lower);
  if (LOOPBACK.check(address, family)) return '127.0.0.1';
  return family === 'ipv6' ? new URL(`http://[${address}]`).hostname.replace(/^\[|\]$/g, '') : address;
}

/**
 * Parses DATABASE_HOSTS: comma-separated entries, each a host name, an address or a CIDR range, optionally with
 * `:port` (IPv6 in brackets: `[fd00::1]:6379`, `[fd00::/8]`). Throws with the entry that does not parse.
 */
export function parseAllowedTargets(text: string): AllowedTarget[] {
  return commaSeparated(text).map((entry) => {
    const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
    const [host, port] = bracketed
      ? [bracketed[1]!, bracketed[2]]
      : ((/^([^:]+)(?::(\d{1,5}))?$/.exec(entry)?.slice(1) ?? [entry, undefined]) as [string, string | undefined]);
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65535))
      throw new Error(`${entry}: port must be between 1 and 65535`);
    const [base, bits] = host.split('/');
    if (bits !== undefined) {
      const family = isIP(base!);
      if (family === 0 || !/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128))
        throw new Error(`${entry}: not a CIDR range`);
    } else if (
      isIP(host) === 0 &&
      !/^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$/.test(host)
    ) {
      throw new Error(`${entry}: not a host name, address or CIDR range`);
    }
    return { host: host.toLowerCase(), ...(port === undefined ? {} : { port: Number(port) }) };
  });
}

function matchesEntry(entry: AllowedTarget, name: string, address: string, port: number): boolean {
  if (entry.port !== undefined && entry.port !== port) return false;
  const [base, bits] = entry.host.split('/');
  if (bits !== undefined) {
    const list = new BlockList();
    const { family } = normalize(base!);
    list.addSubnet(base!, Number(bits), family);
    const target = normalize(address);
    return target.family === family && list.check(target.address, family);
  }
  if (isIP(entry.host) !== 0) return normalize(entry.host).address === normalize(address).address;
  return entry.host.replace(/\.$/, '') === name.toLowerCase().replace(/\.$/, '');
}

export interface TargetPolicy {
  allowed: AllowedTarget[];
  /** The embedded FalkorDB, always allowed (embedded mode only). */
  embedded?: { port: number };
}

/** The policy decision for a resolved address; `name` is what the caller gave. */
export function isTargetAllowed(policy: TargetPolicy, name: string, address: string, port: number): boolean {
  const { address: plain, family } = normalize(address);
  if (ALWAYS_DENIED.check(plain, family)) return false;
  if (policy.embedded && isLoopback(address) && port === policy.embedded.port) return true;
  if (policy.allowed.length > 0) return policy.allowed.some((entry) => matchesEntry(entry, name, address, port));
  // No list: anything but this machine's own loopback, which would reach the server's neighbours in its pod.
  return !isLoopback(address);
}

/** Where the embedded FalkorDB listens, and where it listened before a change of port (its `former-ports`). */
export interface EmbeddedPorts {
  port: number;
  former: readonly number[];
}

/**
 * The port to dial for a token's target: a token made for the embedded FalkorDB names the port it listened on then,
 * and reaches it on the port it listens on now. The embedded database is this machine's loopback on any of its
 * ports, not whatever took one of its former ports since.
 */
export function currentPortOf(embedded: EmbeddedPorts | undefined, host: string, port: number): number {
  if (!embedded || !embedded.former.includes(port) || canonicalDatabaseHost(host) !== '127.0.0.1') return port;
  return embedded.port;
}

export type ResolveTarget = (host: string, port: number) => Promise<string>;

/** Resolves `host` once and returns the address to dial, or throws TargetRefusedError. */
export function createTargetGuard(
  policy: TargetPolicy,
  resolve: (host: string) => Promise<string> = defaultResolve,
): ResolveTarget {
  return async (host, port) => {
    const name = host.replace(/^\[|\]$/g, '');
    const address = isIP(name) !== 0 ? name : await resolve(name);
    if (!isTargetAllowed(policy, name, address, port)) throw new TargetRefusedError(host);
    return address;
  };
}

async function defaultResolve(host: string): Promise<string> {
  const { address } = await lookup(host, { verbatim: true });
  return address;
}
