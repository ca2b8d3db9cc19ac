// URL prefixes an operator allows (CSV_URL_ALLOWLIST), and the one comparison every check of them uses.
import { commaSeparated } from './comma-list.js';
import { BlockList, isIP } from 'node:net';

/** Never a place the database may be sent to fetch from: this machine, its networks, cloud metadata. */
const INTERNAL = new BlockList();
for (const [network, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(network, bits, 'ipv4');
}
for (const [network, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(network, bits, 'ipv6');

/** A host name or address literal that names this machine or a private, link-local or special network. */
export function isInternalHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host)?.[1];
  if (mapped) return INTERNAL.check(mapped, 'ipv4');
  const family = isIP(host);
  return family !== 0 && INTERNAL.check(host, family === 6 ? 'ipv6' : 'ipv4');
}
/**
 * CSV_URL_ALLOWLIST: comma-separated http(s) URL prefixes. Each must be a plain URL (no user, query or fragment) on
 * a host that is not internal (an address literal is checked here; a name's resolution is the database's, so list
 * only public names); it is kept normalised (WHATWG URL), the form the comparison below uses.
 */
export function parseUrlAllowlist(text: string): string[] {
  return commaSeparated(text).map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`CSV_URL_ALLOWLIST: ${JSON.stringify(entry)} is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new Error(`CSV_URL_ALLOWLIST: ${JSON.stringify(entry)} must be an http or https URL`);
    if (url.username || url.password || url.search || url.hash)
      throw new Error(`CSV_URL_ALLOWLIST: ${JSON.stringify(entry)} must not carry a user, query or fragment`);
    // The database would fetch from inside the cluster: never from this machine, a private network or metadata.
    if (isInternalHost(url.hostname))
      throw new Error(
        `CSV_URL_ALLOWLIST: ${JSON.stringify(entry)} names a loopback, private, link-local or special address`,
      );
    return url.href;
  });
}

/**
 * Whether `candidate` lies under `prefix`: same scheme, host and port, and a path equal to the prefix's or below it
 * as a whole segment (`/data` admits `/data/x.csv`, not `/database.csv`). Both are normalised first, so `..` and
 * its percent-encoded forms cannot climb out; a URL with a user part is never admitted.
 */
export function isUnderUrlPrefix(candidate: string, prefix: string): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  const base = new URL(prefix);
  if (url.username || url.password || url.origin !== base.origin) return false;
  const folder = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  return url.pathname === base.pathname || url.pathname.startsWith(folder);
}
