// Each peer address's share of the server's connections: one address holding more than CONNECTIONS_PER_ADDRESS open
// sockets has the next one closed at once, so an idle or slow client cannot take every connection MAX_CONNECTIONS
// allows. The proxies TRUST_PROXY names carry many clients' connections and are exempt; the cap per client then
// belongs to the proxy (docs/decisions/connection-share.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BlockList, isIPv4, type Server, type Socket } from 'node:net';

/** false (the socket's peer is the client), a number of proxy hops, or the proxies' addresses and CIDR ranges. */
export type TrustProxy = false | number | string[];

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is 10.0.0.1: one client, one count. */
export function peerAddress(address: string): string {
  const mapped = /^::ffff:(.+)$/i.exec(address)?.[1];
  return mapped !== undefined && isIPv4(mapped) ? mapped : address.toLowerCase();
}

/** Whether a peer is a proxy TRUST_PROXY names (a hop count trusts every peer: the pod is reachable by proxies only). */
export function trustedProxies(trustProxy: TrustProxy): (address: string) => boolean {
  if (trustProxy === false) return () => false;
  if (typeof trustProxy === 'number') return () => true;
  const list = new BlockList();
  for (const entry of trustProxy) {
    const [address = '', bits] = entry.split('/');
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (address) => {
    const peer = peerAddress(address);
    return list.check(peer, isIPv4(peer) ? 'ipv4' : 'ipv6');
  };
}

export interface ConnectionShare {
  /** Open connections per address (exempt peers are not counted). */
  counts(): ReadonlyMap<string, number>;
}

/**
 * Counts the server's connections per peer address and closes, before HTTP sees it, one that would take its
 * address past `perAddress`. Like MAX_CONNECTIONS, the refused socket is closed without an answer: answering would
 * mean reading its request, which is what holding it costs.
 */
export function capConnectionsPerAddress(
  server: Server,
  options: { perAddress: number; exempt: (address: string) => boolean },
): ConnectionShare {
  const open = new Map<string, number>();
  server.prependListener('connection', (socket: Socket) => {
    const remote = socket.remoteAddress;
    // A socket already gone has no address; HTTP cleans it up.
    if (remote === undefined || options.exempt(remote)) return;
    const address = peerAddress(remote);
    const held = open.get(address) ?? 0;
    if (held >= options.perAddress) {
      socket.destroy();
      return;
    }
    open.set(address, held + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
  return { counts: () => open };
}

/**
 * Ends a connection once the answer to its `max`-th request has been handed to it (`max` 0: never). Node marks that
 * answer `Connection: close` (server.maxRequestsPerSocket) but leaves the socket open and answers 503 to every later
 * request on it, so a client that ignores the header (a load generator, a naive pool) would keep the connection for
 * good and see only errors, and the balancer in front of the replicas would never get to spread it again.
 */
export function endConnectionsAfterRequests(server: Server, max: number): void {
  if (max <= 0) return;
  const served = new WeakMap<Socket, number>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const count = (served.get(socket) ?? 0) + 1;
    served.set(socket, count);
    // end() sends what is queued first, then closes the writing side; the client sees the answer, then the close.
    if (count >= max) response.once('finish', () => socket.end());
  });
}
