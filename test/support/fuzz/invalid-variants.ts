// Invalid (or hostile) variants of a valid request: wrong types, missing fields, oversized strings, unicode,
// `__proto__`/`constructor` keys, URL tricks in path segments, bad bodies and bad credentials.
import fc from 'fast-check';
import type { JsonSchema, Operation } from './operations.js';
import { printable, type AuthMode, type FuzzRequest } from './requests.js';
import { AWKWARD_TEXT } from './schema-arbitraries.js';

/** A field a variant can change: a path or query parameter, or a (nested) body property. */
interface Target {
  where: 'path' | 'query' | 'body';
  path: string[];
  schema: JsonSchema;
}

interface Variant {
  name: string;
  weight: number;
  applies(op: Operation): boolean;
  mutate(request: FuzzRequest): fc.Arbitrary<FuzzRequest>;
}

/** The object alternative of a body schema (bodies such as `{sourceName?} | null`). */
function objectSchemaOf(schema: JsonSchema): JsonSchema | undefined {
  if (schema.properties) return schema;
  return (schema.anyOf ?? schema.oneOf)?.find((alternative) => alternative.properties);
}

function bodyTargets(schema: JsonSchema, prefix: string[] = []): Target[] {
  const object = objectSchemaOf(schema);
  if (!object?.properties) return [];
  return Object.entries(object.properties).flatMap(([name, property]) => [
    { where: 'body' as const, path: [...prefix, name], schema: property },
    ...(prefix.length < 2 ? bodyTargets(property, [...prefix, name]) : []),
  ]);
}

function targetsOf(op: Operation): Target[] {
  return [
    ...op.params.map((param) => ({ where: param.in, path: [param.name], schema: param.schema })),
    ...(op.body ? bodyTargets(op.body.schema) : []),
  ];
}

function isStringSchema(schema: JsonSchema): boolean {
  const types = [schema.type, ...(schema.anyOf ?? []).map((alternative) => alternative.type)].flat();
  return types.includes('string');
}

function maxLengthOf(schema: JsonSchema): number | undefined {
  return (
    schema.maxLength ??
    (schema.anyOf ?? []).map((alternative) => alternative.maxLength).find((max) => max !== undefined)
  );
}

function setAt(root: unknown, path: string[], value: unknown): unknown {
  const copy: Record<string, unknown> =
    root && typeof root === 'object' && !Array.isArray(root) ? structuredClone(root as Record<string, unknown>) : {};
  let node = copy;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    node[key] = next && typeof next === 'object' && !Array.isArray(next) ? next : {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

function withTarget(request: FuzzRequest, target: Target, value: unknown, variant: string, raw = false): FuzzRequest {
  const next: FuzzRequest = { ...request, variant, path: { ...request.path }, query: { ...request.query } };
  const name = target.path[0]!;
  if (target.where === 'path')
    next.path[name] = { value: typeof value === 'string' ? value : JSON.stringify(value), raw };
  else if (target.where === 'query') next.query[name] = value;
  else
    next.body = {
      json: setAt(request.body && 'json' in request.body ? request.body.json : undefined, target.path, value),
    };
  return printable(next);
}

function pickTarget(request: FuzzRequest, filter: (target: Target) => boolean): fc.Arbitrary<Target> | undefined {
  const targets = targetsOf(request.op).filter(filter);
  return targets.length > 0 ? fc.constantFrom(...targets) : undefined;
}

const WRONG_TYPED = [0, -1, 1.5, 1e308, true, false, null, '', 'text', [], [1, 'a'], {}, { nested: { deeper: 1 } }];
export const PATH_TRICKS = [
  '%2F',
  'a%2Fb',
  '..',
  '.',
  '%2E%2E',
  '%2e',
  '..%2F..%2Fadmin',
  '%2F..%2F',
  '`',
  '%60',
  "'",
  '%27',
  '"',
  '%22',
  '%00',
  '%0A',
  '%0D%0A',
  '%',
  '%E0%A4%A',
  '%C0%AF',
  '%uD800',
  '%25',
  '~',
  ';',
  '*',
  '$',
  '%20',
  '+',
  'a%23b',
  'a%3Fb=1',
  '%F0%9F%99%82',
  '%EF%BB%BF',
  '%E2%80%AE',
  'x'.repeat(2100),
];
const MALFORMED_JSON = [
  '{',
  '{"a":',
  '[1,]',
  "{'a':1}",
  'nul',
  '',
  ' ',
  '\u0000',
  '{"a":1}{"b":2}',
  '"\\ud800"',
  '1e99999',
  '{"a":"\u0001"}',
];
const OTHER_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/json-patch+json',
  'text/html',
];
const PROTOTYPE_KEYS = [
  '"__proto__":{"polluted":true}',
  '"constructor":{"prototype":{"polluted":true}}',
  '"__proto__":null',
];
const BOUNDARY_NUMBERS = [-1, 0, -0, 1.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, 1e-9, 65_536, 99_999_999_999];

function bodyText(request: FuzzRequest): string {
  return request.body && 'json' in request.body ? (JSON.stringify(request.body.json) ?? 'null') : '{}';
}

const VARIANTS: Variant[] = [
  {
    name: 'missing-required-field',
    weight: 2,
    applies: (op) =>
      (objectSchemaOf(op.body?.schema ?? {})?.required ?? []).length > 0 ||
      op.params.some((param) => param.in === 'query' && param.required),
    mutate: (request) => {
      const required = [
        ...(objectSchemaOf(request.op.body?.schema ?? {})?.required ?? []).map((name) => ({
          where: 'body' as const,
          path: [name],
          schema: {},
        })),
        ...request.op.params
          .filter((param) => param.in === 'query' && param.required)
          .map((param) => ({ where: 'query' as const, path: [param.name], schema: param.schema })),
      ];
      // A required query parameter may also come as a body copy (hoisted before validation): missing means both gone.
      return fc.constantFrom(...required).map((target) => {
        const missing = withTarget(request, target, undefined, 'missing-required-field');
        const body = missing.body && 'json' in missing.body ? missing.body.json : undefined;
        if (
          target.where !== 'query' ||
          !body ||
          typeof body !== 'object' ||
          Array.isArray(body) ||
          !(target.path[0]! in body)
        )
          return missing;
        return withTarget(
          missing,
          { where: 'body', path: [target.path[0]!], schema: {} },
          undefined,
          'missing-required-field',
        );
      });
    },
  },
  {
    name: 'wrong-type',
    weight: 3,
    applies: (op) => targetsOf(op).some((target) => target.where === 'body'),
    mutate: (request) =>
      fc
        .tuple(
          pickTarget(request, (target) => target.where === 'body')!,
          fc.constantFrom(...WRONG_TYPED),
        )
        .map(([target, value]) => withTarget(request, target, value, 'wrong-type')),
  },
  {
    name: 'wrong-body-root',
    weight: 1,
    applies: (op) => op.body !== undefined,
    mutate: (request) =>
      fc
        .constantFrom<unknown>([], [{}], 'text', 42, true, null)
        .map((json) => printable({ ...request, variant: 'wrong-body-root', body: { json } })),
  },
  {
    name: 'oversized-string',
    weight: 2,
    applies: (op) => targetsOf(op).some((target) => isStringSchema(target.schema)),
    mutate: (request) =>
      fc
        .tuple(
          pickTarget(request, (target) => isStringSchema(target.schema))!,
          fc.constantFrom('x', 'é', '🙂', '%'),
        )
        .map(([target, unit]) => {
          const max = maxLengthOf(target.schema);
          // Past the declared limit, or (where none is declared) long enough to hurt: 64 KiB in the URL, 512 KiB in a body.
          const length =
            max !== undefined && max < 1_100_000 ? max + 1 : target.where === 'body' ? 512 * 1024 : 64 * 1024;
          const text = Array.from(unit.repeat(length)).slice(0, length).join('');
          return withTarget(
            request,
            target,
            target.where === 'path' ? encodeURIComponent(text) : text,
            'oversized-string',
            target.where === 'path',
          );
        }),
  },
  {
    name: 'unicode',
    weight: 2,
    applies: (op) => targetsOf(op).some((target) => isStringSchema(target.schema)),
    mutate: (request) =>
      fc
        .tuple(
          pickTarget(request, (target) => isStringSchema(target.schema))!,
          fc.oneof(
            fc.array(fc.constantFrom(...AWKWARD_TEXT), { minLength: 1, maxLength: 5 }).map((parts) => parts.join('')),
            fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
          ),
        )
        .map(([target, text]) => withTarget(request, target, text, 'unicode')),
  },
  {
    name: 'path-trick',
    weight: 3,
    applies: (op) => op.params.some((param) => param.in === 'path'),
    mutate: (request) =>
      fc
        .tuple(
          pickTarget(request, (target) => target.where === 'path')!,
          fc.constantFrom(...PATH_TRICKS),
        )
        .map(([target, trick]) => withTarget(request, target, trick, 'path-trick', true)),
  },
  {
    name: 'quote-in-parameter',
    weight: 1,
    applies: (op) => op.params.length > 0,
    mutate: (request) =>
      fc
        .tuple(
          pickTarget(request, (target) => target.where !== 'body')!,
          fc.constantFrom('`', "'", '"', "') RETURN 1 //", '`) DETACH DELETE n //', '" OR 1=1 --', '${7*7}', '\\'),
        )
        .map(([target, quote]) => {
          const current =
            target.where === 'path' ? request.path[target.path[0]!]?.value : request.query[target.path[0]!];
          return withTarget(
            request,
            target,
            `${typeof current === 'string' ? current : ''}${quote}`,
            'quote-in-parameter',
          );
        }),
  },
  {
    name: 'prototype-keys',
    weight: 2,
    applies: (op) => op.body !== undefined,
    mutate: (request) =>
      fc.constantFrom(...PROTOTYPE_KEYS).map((key) => {
        const text = bodyText(request);
        const injected = text.startsWith('{') && text !== '{}' ? `{${key},${text.slice(1)}` : `{${key}}`;
        return printable({
          ...request,
          variant: 'prototype-keys',
          body: { text: injected, contentType: 'application/json' },
          expectStatus: key.startsWith('"__proto__"') ? 400 : undefined,
        });
      }),
  },
  {
    name: 'prototype-query',
    weight: 1,
    applies: () => true,
    mutate: (request) =>
      fc
        .constantFrom(
          '__proto__[polluted]=1',
          '__proto__=x',
          'constructor[prototype][polluted]=1',
          'constructor=1',
          'hasOwnProperty=1',
          'toString=1',
        )
        .map((rawQuery) => printable({ ...request, variant: 'prototype-query', rawQuery })),
  },
  {
    name: 'extra-property',
    weight: 1,
    applies: (op) => op.body !== undefined,
    mutate: (request) =>
      fc
        .tuple(
          fc.constantFrom('unknownField', 'admin', 'role', 'isAdmin', '$where', ''),
          fc.constantFrom<unknown>(true, 'x', 1, null),
        )
        .map(([key, value]) =>
          withTarget(request, { where: 'body', path: [key], schema: {} }, value, 'extra-property'),
        ),
  },
  {
    name: 'malformed-json',
    weight: 1,
    applies: (op) => op.body !== undefined,
    mutate: (request) =>
      fc
        .constantFrom(...MALFORMED_JSON)
        .map((text) =>
          printable({ ...request, variant: 'malformed-json', body: { text, contentType: 'application/json' } }),
        ),
  },
  {
    name: 'wrong-content-type',
    weight: 1,
    applies: (op) => op.body !== undefined,
    mutate: (request) =>
      fc
        .constantFrom(...OTHER_CONTENT_TYPES)
        .map((contentType) =>
          printable({ ...request, variant: 'wrong-content-type', body: { text: bodyText(request), contentType } }),
        ),
  },
  {
    name: 'oversized-body',
    weight: 0.2,
    // Sized from the operation's own stated bound: the bounds differ between operations.
    applies: (op) => op.body?.limitBytes !== undefined,
    mutate: (request) =>
      fc.constant(
        printable({
          ...request,
          variant: 'oversized-body',
          body: {
            text: JSON.stringify({ filler: 'x'.repeat(request.op.body!.limitBytes! + 16) }),
            contentType: 'application/json',
          },
          expectStatus: 413,
        }),
      ),
  },
  {
    name: 'repeated-query',
    weight: 1,
    applies: (op) => op.params.some((param) => param.in === 'query'),
    mutate: (request) =>
      pickTarget(request, (target) => target.where === 'query')!.map((target) => {
        const name = target.path[0]!;
        const value = request.query[name] ?? 'x';
        return withTarget(request, target, [value, value], 'repeated-query');
      }),
  },
  {
    name: 'boundary-number',
    weight: 1,
    applies: (op) =>
      targetsOf(op).some(
        (target) => target.where === 'body' && ['integer', 'number'].includes(String(target.schema.type)),
      ),
    mutate: (request) =>
      fc
        .tuple(
          pickTarget(
            request,
            (target) => target.where === 'body' && ['integer', 'number'].includes(String(target.schema.type)),
          )!,
          fc.constantFrom(...BOUNDARY_NUMBERS),
        )
        .map(([target, value]) => withTarget(request, target, value, 'boundary-number')),
  },
  {
    name: 'bad-credentials',
    weight: 2,
    applies: () => true,
    mutate: (request) =>
      fc
        .constantFrom<AuthMode>('none', 'garbage', 'wrong-api', 'lesser-role')
        .map((auth) => printable({ ...request, variant: `auth-${auth}`, auth })),
  },
];

/** The variants that can apply to an operation, as one arbitrary over valid requests of it. */
export function invalidRequests(
  op: Operation,
  valid: fc.Arbitrary<FuzzRequest>,
): fc.Arbitrary<FuzzRequest> | undefined {
  const applicable = VARIANTS.filter((variant) => variant.applies(op));
  if (applicable.length === 0) return undefined;
  const scale = 5; // fast-check weights are integers
  return fc.oneof(
    ...applicable.map((variant) => ({
      weight: Math.max(1, Math.round(variant.weight * scale)),
      arbitrary: valid.chain((request) => variant.mutate(request)),
    })),
  );
}
