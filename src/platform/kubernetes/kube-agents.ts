// One keep-alive connection pool for the API server, in place of the new agent @kubernetes/client-node builds for
// every request (which opens a new TLS connection, and parses the CA again, each time).
import { Agent as HttpAgent, type AgentOptions as HttpAgentOptions } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';

/** Bounds of the reused pool: concurrency towards the API server, idle connections kept, how long they idle. */
export interface KubeAgentBounds {
  /** At most this many connections at once; requests beyond wait for one (within their own deadline). */
  maxSockets: number;
  /** At most this many idle connections kept open. */
  maxFreeSockets: number;
  /**
   * An idle connection is closed after this long: well under the API server's own idle timeout (90 s), so a request
   * is not sent on a connection the server is closing.
   */
  idleMs: number;
}

const DEFAULT_KUBE_AGENT_BOUNDS: KubeAgentBounds = { maxSockets: 32, maxFreeSockets: 8, idleMs: 30_000 };

/** The connection options that decide who we talk to and as whom: a change of any of them needs new connections. */
const IDENTITY_OPTIONS = [
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
  'ciphers',
  'crl',
] as const;

type AgentOptions = HttpsAgentOptions & HttpAgentOptions;

/** Equal option values: Buffers by content, arrays item by item (a CA bundle), anything else by identity. */
export function sameOptionValue(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => sameOptionValue(item, b[index]));
  return a === b;
}

export function sameConnectionIdentity(a: AgentOptions, b: AgentOptions): boolean {
  return IDENTITY_OPTIONS.every((name) => sameOptionValue(a[name], b[name]));
}

/**
 * Hands out one keep-alive agent for as long as the agents the client builds carry the same connection identity;
 * a changed CA or client certificate (a rotated kubeconfig, a renewed service-account CA) gets a new pool, and the
 * old one's connections close once idle. Agents of other kinds (a proxy's) are passed through as they are.
 */
export class ReusedKubeAgents {
  #current: { kind: 'http' | 'https'; options: AgentOptions; agent: HttpAgent } | undefined;

  // Idle pooled sockets are unreferenced by Node, so they never hold the process open: nothing to close at shutdown.
  constructor(private readonly bounds: KubeAgentBounds = DEFAULT_KUBE_AGENT_BOUNDS) {}

  agentFor(built: HttpAgent | HttpsAgent | undefined): HttpAgent | HttpsAgent | undefined {
    // Exact classes only: a proxy agent extends them with its own connection logic.
    const kind = built?.constructor === HttpsAgent ? 'https' : built?.constructor === HttpAgent ? 'http' : undefined;
    if (!built || !kind) return built;
    // Node keeps the options an agent was built with; its types do not show them.
    const options = (built as HttpAgent & { options: AgentOptions }).options;
    const current = this.#current;
    if (current && current.kind === kind && sameConnectionIdentity(current.options, options)) return current.agent;
    const pooled: AgentOptions = {
      ...options,
      keepAlive: true,
      maxSockets: this.bounds.maxSockets,
      maxFreeSockets: this.bounds.maxFreeSockets,
      // Node closes a connection idle in the pool this long; one carrying a request is left to its deadline.
      timeout: this.bounds.idleMs,
    };
    const agent = kind === 'https' ? new HttpsAgent(pooled) : new HttpAgent(pooled);
    this.#current = { kind, options, agent };
    return agent;
  }
}
