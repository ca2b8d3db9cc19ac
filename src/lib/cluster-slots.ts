// The pure parts of a sharded (Redis Cluster protocol) deployment: which of the 16,384 hash slots a key hashes to,
// which key a command is about, the slot map CLUSTER SLOTS describes, and the MOVED/ASK redirections.
import calculateSlot from 'cluster-key-slot';

export const SLOT_COUNT = 16_384;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The part of a key that is hashed: the text between the first `{` and the first `}` after it when that is not
 * empty (a hash tag, which keeps related keys in one slot), else the whole key.
 */
export function hashTagOf(key: Uint8Array): Uint8Array {
  const open = key.indexOf(OPEN_BRACE);
  if (open === -1) return key;
  const close = key.indexOf(CLOSE_BRACE, open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.subarray(open + 1, close);
}

/** The slot a key hashes to (CRC16/XMODEM of its hash tag, modulo 16,384), by cluster-key-slot, as node-redis does. */
export function keySlot(key: string | Uint8Array): number {
  return calculateSlot(typeof key === 'string' || Buffer.isBuffer(key) ? key : Buffer.from(key));
}

/**
 * A name for `target` that hashes to `source`'s slot: the source's hash tag (or its whole name) in braces, then
 * the target's name without braces of its own. What the cross-slot refusal suggests.
 */
export function sameSlotName(source: string, target: string): string {
  const tag = Buffer.from(hashTagOf(Buffer.from(source, 'utf8'))).toString('utf8');
  return `{${tag}}${target.replace(/[{}]/g, '')}`;
}

/** Commands whose key is not the first argument after the name: GRAPH.MEMORY USAGE <key>, GRAPH.CONSTRAINT <op> <key>. */
const KEY_AT_TWO = new Set(['GRAPH.MEMORY', 'GRAPH.CONSTRAINT']);
/** Commands whose first argument is their (first) key. */
const KEY_AT_ONE = new Set([
  'GRAPH.QUERY',
  'GRAPH.RO_QUERY',
  'GRAPH.DELETE',
  'GRAPH.EXPLAIN',
  'GRAPH.PROFILE',
  'GRAPH.SLOWLOG',
  'GRAPH.COPY',
  'GRAPH.BULK',
  'EXISTS',
  'TYPE',
  'DEL',
  'UNLINK',
  'DUMP',
  'RESTORE',
  'RENAME',
  'RENAMENX',
  'EXPIRE',
  'PEXPIRE',
  'TTL',
  'PTTL',
  'EXPIRETIME',
]);

/**
 * The key a command is routed by, or undefined for a command about no key (GRAPH.LIST, ACL, GRAPH.CONFIG, INFO…),
 * which any node may answer. A command without its key argument (GRAPH.QUERY alone, the role probe) has none.
 */
export function routingKey(args: readonly (string | Buffer)[]): string | Buffer | undefined {
  const name = String(args[0] ?? '').toUpperCase();
  if (KEY_AT_ONE.has(name)) return args[1];
  if (KEY_AT_TWO.has(name)) return args[2];
  return undefined;
}

export interface ClusterNode {
  host: string;
  port: number;
}

export interface ClusterMap {
  /** For each slot, the index in `primaries` of the node serving it; -1 where no node serves it. */
  slots: Int16Array;
  primaries: ClusterNode[];
  /** Every replica, once. */
  replicas: ClusterNode[];
  /** The replicas of each primary, by its index in `primaries`. */
  replicasOf: ClusterNode[][];
}

/** `host:port`, with brackets around an IPv6 address. */
export const nodeAddress = (node: ClusterNode): string =>
  node.host.includes(':') ? `[${node.host}]:${node.port}` : `${node.host}:${node.port}`;

/**
 * The slot map of a CLUSTER SLOTS reply: `[[start, end, [host, port, id, …], [replica host, port, id, …]…]…]`. A node
 * whose host is empty or `?` (the node does not know its own address) is the one that was asked, `askedHost`.
 */
export function parseClusterSlots(reply: unknown, askedHost: string): ClusterMap {
  if (!Array.isArray(reply)) throw new Error('CLUSTER SLOTS did not answer a list');
  const slots = new Int16Array(SLOT_COUNT).fill(-1);
  const primaries: ClusterNode[] = [];
  const replicas: ClusterNode[] = [];
  const replicasOf: ClusterNode[][] = [];
  const indexOf = new Map<string, number>();
  const seenReplicas = new Set<string>();
  const nodeOf = (entry: unknown): ClusterNode => {
    if (!Array.isArray(entry)) throw new Error('CLUSTER SLOTS named a node without an address');
    const host = String(entry[0] ?? '');
    const port = Number(entry[1]);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('CLUSTER SLOTS named an invalid port');
    return { host: host === '' || host === '?' ? askedHost : host, port };
  };
  for (const range of reply) {
    if (!Array.isArray(range) || range.length < 3) throw new Error('CLUSTER SLOTS answered a malformed range');
    const start = Number(range[0]);
    const end = Number(range[1]);
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end >= SLOT_COUNT || start > end)
      throw new Error('CLUSTER SLOTS answered an invalid slot range');
    const primary = nodeOf(range[2]);
    const key = nodeAddress(primary);
    let index = indexOf.get(key);
    if (index === undefined) {
      index = primaries.push(primary) - 1;
      replicasOf.push([]);
      indexOf.set(key, index);
    }
    slots.fill(index, start, end + 1);
    for (const entry of range.slice(3)) {
      const replica = nodeOf(entry);
      if (!seenReplicas.has(nodeAddress(replica))) {
        seenReplicas.add(nodeAddress(replica));
        replicas.push(replica);
        replicasOf[index]!.push(replica);
      }
    }
  }
  if (primaries.length === 0) throw new Error('CLUSTER SLOTS named no node: the cluster serves no slot');
  return { slots, primaries, replicas, replicasOf };
}

export interface Redirection {
  kind: 'MOVED' | 'ASK';
  slot: number;
  node: ClusterNode;
}

/**
 * The redirection an error reply names (`MOVED 3999 10.0.0.2:6379`, `ASK 3999 [::1]:6380`), if it is one. An empty
 * host (`MOVED 3999 :6380`, a node that does not know its address) means the host of the node that answered.
 */
export function redirectionOf(message: string): Redirection | undefined {
  const match = /^(MOVED|ASK) (\d+) (\S+)$/.exec(message);
  if (!match) return undefined;
  const address = match[3]!;
  const colon = address.lastIndexOf(':');
  if (colon < 0) return undefined;
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(colon + 1));
  const slot = Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535 || slot >= SLOT_COUNT) return undefined;
  return { kind: match[1] as 'MOVED' | 'ASK', slot, node: { host, port } };
}
