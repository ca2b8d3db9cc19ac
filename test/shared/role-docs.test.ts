// docs/browser-roles.md lists every browser operation of the OpenAPI document, and nothing that is not one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isBrowserPath } from '../../src/browser/paths.js';

const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
};
const operations = Object.entries(document.paths)
  .filter(([path]) => isBrowserPath(path))
  .flatMap(([path, methods]) =>
    Object.keys(methods)
      .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
const documented = [...readFileSync('docs/browser-roles.md', 'utf8').matchAll(/^\| `([A-Z]+ [^`]+)` \| ([^|]+) \|/gm)];

describe('docs/browser-roles.md', () => {
  it('names a minimum role for every browser operation, and only for those', () => {
    expect(operations.length).toBeGreaterThan(40);
    expect(documented.map((row) => row[1]).sort()).toEqual([...operations].sort());
    for (const row of documented) expect(row[2]!.trim()).toMatch(/^(none \(public\)|Read-Only|Read-Write|Admin)$/);
  });
});
