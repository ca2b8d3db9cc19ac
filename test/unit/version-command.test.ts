// The version command's compatibility rule and the table formatting of sizes and ages.
import { describe, expect, it } from 'vitest';
import { compatibility } from '../../src/cli/commands/version-command.js';
import { age, humanSize } from '../../src/cli/output.js';
import { inCliTerms, setCommandFlags } from '../../src/cli/api-client.js';

describe('compatibility', () => {
  it('needs the same major version, and says which side is newer', () => {
    expect(compatibility('1.4.0', '1.4.6')).toEqual({ compatible: true });
    expect(compatibility('1.4.0', '1.5.0').note).toContain('newer');
    expect(compatibility('1.5.0', '1.4.0').note).toContain('older');
    expect(compatibility('1.5.0', '1.4.0').compatible).toBe(true);
    expect(compatibility('1.4.0', '2.0.0')).toEqual({
      compatible: false,
      note: expect.stringContaining('2.x') as unknown,
    });
    expect(compatibility('1.4.0', 'unknown').compatible).toBe(false);
  });
});

describe('table values', () => {
  it('shows byte counts in binary units and Kubernetes quantities as they are', () => {
    expect(humanSize('512')).toBe('512 B');
    expect(humanSize('1572864')).toBe('1.5 MiB');
    expect(humanSize(25 * 1024 ** 3)).toBe('25 GiB');
    expect(humanSize('12Mi')).toBe('12Mi');
    expect(humanSize(undefined)).toBe('');
  });
  it('shows ages as kubectl does', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    expect(age('2026-11-28T11:59:30Z', now)).toBe('30s');
    expect(age('2026-11-28T11:00:00Z', now)).toBe('60m');
    expect(age('2026-11-27T12:00:00Z', now)).toBe('24h');
    expect(age('2026-11-20T12:00:00Z', now)).toBe('8d');
    expect(age('2020-11-20T12:00:00Z', now)).toBe('6y');
    expect(age(undefined, now)).toBe('');
  });
});

describe('server messages in the CLI terms', () => {
  it('names settings and flags instead of request paths, and commands instead of routes', () => {
    expect(inCliTerms('body.retention: Unrecognized key: "audit_days"')).toBe('unknown name retention.audit_days');
    expect(inCliTerms('body: Unrecognized keys: "a", "b"')).toBe('unknown names a, b');
    setCommandFlags(['--backupName']);
    expect(inCliTerms('body.backupName: must be a lowercase DNS label')).toBe(
      '--backupName: must be a lowercase DNS label',
    );
    expect(inCliTerms('body.spec.replicas: Too big')).toBe('spec.replicas: Too big');
    expect(inCliTerms('Unknown role x; the roles are listed by GET /api/rbac/roles')).toBe(
      'Unknown role x; the roles are listed by `graphdb-admin rbac roles list`',
    );
  });
});
