// Which peers count against CONNECTIONS_PER_ADDRESS, and under which address (src/http/connection-share.ts).
import { describe, expect, it } from 'vitest';
import { peerAddress, trustedProxies } from '../../src/http/connection-share.js';

describe('peer addresses', () => {
  it('counts an IPv4 peer on a dual-stack socket as its IPv4 address', () => {
    expect(peerAddress('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(peerAddress('::FFFF:10.1.2.3')).toBe('10.1.2.3');
    expect(peerAddress('10.1.2.3')).toBe('10.1.2.3');
    expect(peerAddress('2001:DB8::1')).toBe('2001:db8::1');
  });
});

describe('trusted proxies', () => {
  it('exempts nobody without TRUST_PROXY, and every peer with a hop count', () => {
    expect(trustedProxies(false)('10.0.0.1')).toBe(false);
    expect(trustedProxies(2)('203.0.113.9')).toBe(true);
  });

  it('exempts the listed addresses and ranges only, however the peer is written', () => {
    const exempt = trustedProxies(['10.0.0.0/8', '192.0.2.7', 'fd00::/8']);
    expect(exempt('10.20.30.40')).toBe(true);
    expect(exempt('::ffff:10.20.30.40')).toBe(true);
    expect(exempt('192.0.2.7')).toBe(true);
    expect(exempt('192.0.2.8')).toBe(false);
    expect(exempt('fd12::1')).toBe(true);
    expect(exempt('2001:db8::1')).toBe(false);
    expect(exempt('11.0.0.1')).toBe(false);
  });
});
