import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { describe, expect, it } from 'vitest';
import {
  ReusedKubeAgents,
  sameConnectionIdentity,
  sameOptionValue,
} from '../../src/platform/kubernetes/kube-agents.js';

const optionsOf = (agent: unknown) => (agent as { options: Record<string, unknown> }).options;

describe('ReusedKubeAgents', () => {
  it('answers one keep-alive agent, bounded, for agents built with the same TLS material', () => {
    const agents = new ReusedKubeAgents({ maxSockets: 7, maxFreeSockets: 2, idleMs: 1234 });
    const first = agents.agentFor(new HttpsAgent({ ca: Buffer.from('CA'), rejectUnauthorized: true }));
    const second = agents.agentFor(new HttpsAgent({ ca: Buffer.from('CA'), rejectUnauthorized: true }));
    expect(second).toBe(first);
    expect(first).toBeInstanceOf(HttpsAgent);
    expect(optionsOf(first)).toMatchObject({ keepAlive: true, maxSockets: 7, maxFreeSockets: 2, timeout: 1234 });
    expect(optionsOf(first).ca).toEqual(Buffer.from('CA'));
  });

  it('answers a new agent when the CA, the client certificate or the verification changes', () => {
    const agents = new ReusedKubeAgents();
    const first = agents.agentFor(new HttpsAgent({ ca: 'CA-1', cert: 'C', key: 'K' }));
    const rotatedCa = agents.agentFor(new HttpsAgent({ ca: 'CA-2', cert: 'C', key: 'K' }));
    expect(rotatedCa).not.toBe(first);
    const rotatedCert = agents.agentFor(new HttpsAgent({ ca: 'CA-2', cert: 'C2', key: 'K' }));
    expect(rotatedCert).not.toBe(rotatedCa);
    const unverified = agents.agentFor(new HttpsAgent({ ca: 'CA-2', cert: 'C2', key: 'K', rejectUnauthorized: false }));
    expect(unverified).not.toBe(rotatedCert);
    expect(optionsOf(unverified)).toMatchObject({ rejectUnauthorized: false, keepAlive: true });
  });

  it('keeps plain-HTTP and HTTPS pools apart, and passes other agents (a proxy) and none through', () => {
    const agents = new ReusedKubeAgents();
    const https = agents.agentFor(new HttpsAgent({}));
    const http = agents.agentFor(new HttpAgent({}));
    expect(http).toBeInstanceOf(HttpAgent);
    expect(http).not.toBeInstanceOf(HttpsAgent);
    expect(http).not.toBe(https);
    class ProxyAgent extends HttpsAgent {}
    const proxy = new ProxyAgent({});
    expect(agents.agentFor(proxy)).toBe(proxy);
    expect(agents.agentFor(undefined)).toBeUndefined();
  });
});

describe('connection identity', () => {
  it('compares Buffers by content, CA bundles item by item, the rest by identity', () => {
    expect(sameOptionValue(Buffer.from('a'), Buffer.from('a'))).toBe(true);
    expect(sameOptionValue(Buffer.from('a'), Buffer.from('b'))).toBe(false);
    expect(sameOptionValue(['x', Buffer.from('y')], ['x', Buffer.from('y')])).toBe(true);
    expect(sameOptionValue(['x'], ['x', 'y'])).toBe(false);
    expect(sameOptionValue(undefined, undefined)).toBe(true);
    expect(sameOptionValue(undefined, false)).toBe(false);
    expect(sameConnectionIdentity({ servername: 'a' }, { servername: 'a' })).toBe(true);
    expect(sameConnectionIdentity({ servername: 'a' }, { servername: 'b' })).toBe(false);
  });
});
