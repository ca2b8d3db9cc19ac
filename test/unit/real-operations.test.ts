import { describe, expect, it } from 'vitest';
import {
  pathSpellings,
  realOperations,
  renamed,
  sampleOf,
  validatorOf,
  type JsonSchema,
} from '../support/conformance/real-operations.js';

describe('the real operations the conformance walk reads', () => {
  it('holds the 101 operations of the published API (and the newer ones beside them)', () => {
    expect(realOperations().length).toBeGreaterThanOrEqual(101);
  });

  it('renames the names of the FalkorDB Enterprise admin API to the names of this server in keys, required lists and enums', () => {
    expect(
      renamed({
        type: 'object',
        required: ['google_oauth'],
        properties: { google_oauth: { enum: ['google', 'azure', 'okta'] }, prometheus_port: { type: 'integer' } },
      }),
    ).toEqual({
      type: 'object',
      required: ['alpha_oauth'],
      properties: { alpha_oauth: { enum: ['alpha', 'beta', 'okta'] }, exporter_port: { type: 'integer' } },
    });
  });

  it('builds, for every request body of the reference, a sample its own schema accepts', () => {
    const refused: string[] = [];
    for (const operation of realOperations()) {
      const schema = operation.requestBody?.content['application/json'];
      if (!schema) continue;
      const validate = validatorOf(schema);
      const sample = sampleOf(schema);
      if (!validate(sample)) refused.push(`${operation.method} ${operation.path}: ${JSON.stringify(validate.errors)}`);
    }
    expect(refused).toEqual([]);
  });

  it('lets overrides replace and add top-level properties', () => {
    const schema: JsonSchema = {
      type: 'object',
      required: ['email'],
      properties: { email: { type: 'string', format: 'email' }, name: { type: 'string' } },
    };
    expect(sampleOf(schema, { email: 'a@b.example', name: 'A' })).toEqual({ email: 'a@b.example', name: 'A' });
  });

  it('accepts a declared trailing slash with or without it', () => {
    expect(pathSpellings('/api/users/')).toEqual(['/api/users/', '/api/users']);
    expect(pathSpellings('/api/users/{email}')).toEqual(['/api/users/{email}']);
  });
});
