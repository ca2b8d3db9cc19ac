// How the CLI names a connection failure.
import { describe, expect, it } from 'vitest';
import { connectionCause } from '../../src/cli/cli-errors.js';

describe('connection errors', () => {
  it("name the system's cause and address, through fetch's wrapping and happy-eyeballs' AggregateError", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3000'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 3000,
    });
    expect(connectionCause(new TypeError('fetch failed', { cause: refused }))).toBe('ECONNREFUSED 127.0.0.1:3000');
    const both = Object.assign(
      new AggregateError([
        refused,
        Object.assign(new Error('x'), { code: 'ECONNREFUSED', address: '::1', port: 3000 }),
      ]),
      {
        code: 'ECONNREFUSED',
      },
    );
    expect(connectionCause(new TypeError('fetch failed', { cause: both }))).toBe(
      'ECONNREFUSED 127.0.0.1:3000, ECONNREFUSED ::1:3000',
    );
    expect(
      connectionCause(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error('x'), { code: 'ENOTFOUND', hostname: 'nowhere.invalid' }),
        }),
      ),
    ).toBe('ENOTFOUND nowhere.invalid');
  });
});
