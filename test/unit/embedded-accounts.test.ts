// The ACL file the embedded FalkorDB starts with: service accounts rewritten, users saved by the browser API kept.
import { describe, expect, it } from 'vitest';
import { mergeAclFile, serviceAccountLines } from '../../src/platform/falkordb/embedded-accounts.js';

const accounts = {
  admin: { username: 'admin', password: 'a'.repeat(40) },
  tokenStore: { username: 'graphdb-token-store', password: 'b'.repeat(40) },
};

describe('the embedded ACL file', () => {
  it('switches default off and stores passwords as SHA-256 only', () => {
    const text = mergeAclFile('', accounts);
    expect(text).toMatch(/^user default off resetpass /m);
    expect(text).not.toContain('a'.repeat(40));
    expect(text).toMatch(/^user admin on #[0-9a-f]{64} ~\* &\* \+@all$/m);
    expect(text).toMatch(
      /^user graphdb-token-store on #[0-9a-f]{64} resetkeys ~graphdb:\* resetchannels &graphdb:\* -@all /m,
    );
  });

  it('keeps other users and replaces the service accounts, whatever was edited into them', () => {
    const existing = [
      'user default on nopass ~* &* +@all',
      'user alice on #' + '1'.repeat(64) + ' ~* resetchannels -@all +graph.ro_query',
      'user graphdb-token-store on nopass ~* +@all',
      '',
    ].join('\n');
    const lines = mergeAclFile(existing, accounts).trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines).toContain('user alice on #' + '1'.repeat(64) + ' ~* resetchannels -@all +graph.ro_query');
    expect(lines.filter((line) => line.startsWith('user default '))).toEqual([
      serviceAccountLines(accounts).get('default'),
    ]);
    expect(lines.filter((line) => line.startsWith('user graphdb-token-store '))).toEqual([
      serviceAccountLines(accounts).get('graphdb-token-store'),
    ]);
  });
});
