// TOKEN_STORE_URL: one server (`redis://`, `rediss://`), a Sentinel master
// (`redis+sentinel://[user:pass@]sentinel1:26379[,sentinel2:26379…]/<master name>[/<db>]`, `rediss+sentinel://` for
// TLS to the data nodes), or a sharded cluster (`redis+cluster://[user:pass@]node1:6379[,node2:6379…]`,
// `rediss+cluster://`; the nodes are seeds, the others are found from them; a cluster has database 0 only).
// Pure: parsing only.

export type StoreTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'sentinel';
      masterName: string;
      sentinels: { host: string; port: number }[];
      username?: string;
      password?: string;
      database: number;
      tls: boolean;
    }
  | {
      kind: 'cluster';
      seeds: { host: string; port: number }[];
      username?: string;
      password?: string;
      tls: boolean;
    };

const SENTINEL_SCHEME = /^(rediss?)\+sentinel:\/\/(?:([^@/]*)@)?([^/]+)\/([^/?#]+)(?:\/(\d+))?\/?$/;
const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/]+)\/?$/;
const MASTER_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const DEFAULT_SENTINEL_PORT = 26379;
const DEFAULT_NODE_PORT = 6379;

export function isSentinelUrl(url: string): boolean {
  return /^rediss?\+sentinel:\/\//.test(url);
}

function address(text: string, kind = 'sentinel', defaultPort = DEFAULT_SENTINEL_PORT): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : (text.split(':') as [string, string?]);
  const number = port === undefined ? defaultPort : Number(port);
  if (!host || !Number.isInteger(number) || number < 1 || number > 65535)
    throw new Error(`${kind} address ${text} is not host:port`);
  return { host, port: number };
}

export function isClusterUrl(url: string): boolean {
  return /^rediss?\+cluster:\/\//.test(url);
}

function credentialsOf(userinfo: string | undefined): { username?: string; password?: string } {
  const [user, pass] = userinfo === undefined ? [] : userinfo.split(':');
  return {
    ...(user ? { username: decodeURIComponent(user) } : {}),
    ...(pass !== undefined ? { password: decodeURIComponent(pass) } : {}),
  };
}

/** Throws an Error naming what is wrong, for the configuration's message list. */
export function parseStoreUrl(url: string): StoreTarget {
  if (isClusterUrl(url)) {
    const match = CLUSTER_SCHEME.exec(url);
    if (!match)
      throw new Error('must be redis+cluster://[user:pass@]host:port[,host:port…] (a cluster has no database number)');
    const [, scheme, userinfo, hosts] = match;
    return {
      kind: 'cluster',
      seeds: hosts!.split(',').map((text) => address(text, 'cluster node', DEFAULT_NODE_PORT)),
      ...credentialsOf(userinfo),
      tls: scheme === 'rediss',
    };
  }
  if (!isSentinelUrl(url)) return { kind: 'single', url };
  const match = SENTINEL_SCHEME.exec(url);
  if (!match) throw new Error('must be redis+sentinel://[user:pass@]host:port[,host:port…]/<master name>[/<db>]');
  const [, scheme, userinfo, hosts, masterName, database] = match;
  if (!MASTER_NAME.test(masterName!)) throw new Error('the master name must be letters, digits, . _ or -');
  const db = database === undefined ? 0 : Number(database);
  if (db > 15) throw new Error('the database must be 0 to 15');
  return {
    kind: 'sentinel',
    masterName: masterName!,
    sentinels: hosts!.split(',').map((text) => address(text)),
    ...credentialsOf(userinfo),
    database: db,
    tls: scheme === 'rediss',
  };
}
