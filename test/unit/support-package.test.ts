// The support package's scrubbing of secrets.
import { describe, expect, it } from 'vitest';
import { scrubSecrets } from '../../src/admin/diagnostics/support-package.js';

describe('support package scrubbing', () => {
  it('replaces every known secret, also as JSON escapes it, and leaves short values alone', () => {
    const key = 'line one\nline "two"';
    const text = `a=${'s3cret-value-1'} b=${JSON.stringify(key)} c=short`;
    expect(scrubSecrets(text, ['s3cret-value-1', key, 'short'])).toBe('a=[Redacted] b="[Redacted]" c=short');
  });
});
