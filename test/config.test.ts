import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({
      port: 3000,
      // Embedded mode (no TOKEN_STORE_URL) listens on loopback unless HOST is set.
      host: '127.0.0.1',
      logLevel: 'info',
      dataDir: '/srv/app/data',
      publicOrigin: 'http://localhost:3000',
      enableDocsUi: true,
      tokenStoreUrl: undefined,
      authSecret: undefined,
      shutdownTimeoutMs: 10_000,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(loadConfig({ TOKEN_STORE_URL: 'redis://store:6379' }, '/srv/app').host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0' }, '/srv/app').host).toBe('0.0.0.0');
  });

  it('reads MANAGED_NAMESPACES as an anchored pattern, the cluster namespace alone by default', () => {
    const byDefault = loadConfig({ CLUSTER_NAMESPACE: 'db-team' }, '/srv/app').managedNamespaces;
    expect(['db-team', 'db-team-2', 'x-db-team', 'graphdb-system'].map((ns) => byDefault.test(ns))).toEqual([
      true,
      false,
      false,
      false,
    ]);
    const teams = loadConfig({ MANAGED_NAMESPACES: 'team-[a-z]+|graphdb-system' }, '/srv/app').managedNamespaces;
    expect(['team-a', 'graphdb-system', 'xteam-a', 'team-a1', 'graphdb-system2'].map((ns) => teams.test(ns))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(() => loadConfig({ MANAGED_NAMESPACES: 'team-(' }, '/srv/app')).toThrow(ConfigError);
  });

  it('treats blank values as unset', () => {
    const config = loadConfig({ PORT: '', TOKEN_STORE_URL: '  ', ENABLE_DOCSUI: '' });
    expect(config.port).toBe(3000);
    expect(config.tokenStoreUrl).toBeUndefined();
    expect(config.enableDocsUi).toBe(true);
  });

  it('parses typed values', () => {
    const config = loadConfig({
      PORT: '8080',
      ENABLE_DOCSUI: 'FALSE',
      PUBLIC_ORIGIN: 'https://admin.example.com/',
      TOKEN_STORE_URL: 'rediss://user:pw@store:6380/2',
      ENCRYPTION_KEY: 'AB'.repeat(32),
    });
    expect(config).toMatchObject({
      port: 8080,
      enableDocsUi: false,
      publicOrigin: 'https://admin.example.com',
      encryptionKey: 'ab'.repeat(32),
    });
  });

  it('reports every problem at once in one readable message, never echoing secrets', () => {
    let caught: unknown;
    try {
      loadConfig({
        PORT: 'abc',
        LOG_LEVEL: 'loud',
        ENCRYPTION_KEY: 'not-hex-secret-value',
        AUTH_SECRET: 'short-secret',
        ENABLE_DOCSUI: 'maybe',
        PUBLIC_ORIGIN: 'https://x.example/path',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as ConfigError).message;
    expect((caught as ConfigError).problems).toHaveLength(6);
    expect(message).toMatch(/^Invalid configuration \(6 problems\):/);
    expect(message).toContain('PORT: must be a number (got "abc")');
    expect(message).toContain('LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "loud")');
    expect(message).toContain('ENCRYPTION_KEY: must be 64 hex characters');
    expect(message).toContain('AUTH_SECRET: must be at least 32 characters long');
    expect(message).toContain('ENABLE_DOCSUI:');
    expect(message).toContain('PUBLIC_ORIGIN: must be an origin');
    expect(message).not.toContain('not-hex-secret-value');
    expect(message).not.toContain('short-secret');
  });

  it('takes the metrics exporter credentials together or not at all, never echoing the password', () => {
    expect(loadConfig({}).metricsBasicAuth).toBeUndefined();
    expect(
      loadConfig({ METRICS_USERNAME: 'prometheus', METRICS_PASSWORD: 'scrape-password' }).metricsBasicAuth,
    ).toEqual({ username: 'prometheus', password: 'scrape-password' });
    expect(() => loadConfig({ METRICS_USERNAME: 'prometheus' })).toThrow(
      'METRICS_PASSWORD: must be set together with METRICS_USERNAME',
    );
    expect(() => loadConfig({ METRICS_PASSWORD: 'scrape-password' })).toThrow(
      'METRICS_USERNAME: must be set together with METRICS_PASSWORD',
    );
    let caught: unknown;
    try {
      loadConfig({ METRICS_USERNAME: 'pro:metheus', METRICS_PASSWORD: 'short' });
    } catch (error) {
      caught = error;
    }
    expect((caught as ConfigError).problems).toEqual([
      'METRICS_USERNAME: must not contain a colon (got "pro:metheus")',
      'METRICS_PASSWORD: must be at least 8 characters long',
    ]);
  });

  it('honours the beta environment fallback only with OAUTH_PROVIDER=beta', () => {
    const env = { BETA_CLIENT_ID: 'b-client', BETA_TENANT_ID: 'tenant', ALPHA_CLIENT_ID: 'a-client' };
    expect(loadConfig(env).oauthEnv.beta).toEqual({});
    expect(loadConfig({ ...env, OAUTH_PROVIDER: 'beta' }).oauthEnv.beta).toMatchObject({
      clientId: 'b-client',
      tenantId: 'tenant',
    });
    expect(loadConfig(env).oauthEnv.alpha.clientId).toBe('a-client');
  });
});
