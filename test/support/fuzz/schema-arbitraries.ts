// JSON Schema (the subset openapi/openapi.json uses) -> fast-check arbitraries of values the schema accepts,
// mixed with hints: values that reach real resources (an existing graph, node, token, user or cluster).
import fc from 'fast-check';
import type { JsonSchema } from './operations.js';

export interface GenerationContext {
  /** Values worth trying for a field or parameter of this name, mixed in with generated ones. */
  hintsFor(name: string): fc.Arbitrary<unknown> | undefined;
}

export const NO_HINTS: GenerationContext = { hintsFor: () => undefined };

/** Generated strings stay short; oversized ones are an invalid variant of their own. */
const MAX_GENERATED_LENGTH = 40;
const MAX_GENERATED_ITEMS = 4;

/** Text that tends to break things: other scripts, combining marks, joiners, direction overrides, astral planes. */
export const AWKWARD_TEXT = [
  'é',
  'ß',
  '日本語',
  '🙂',
  '👩‍👩‍👧',
  'ﷺ',
  'עברית',
  '\u202e',
  '\u200b',
  'İ',
  '\ufeff',
  '𝔘𝔫𝔦',
  'a\u0301',
  '\\',
  '%',
  '"',
  "'",
  '`',
  '$',
  '{}',
  '../',
  '%2F',
  '\u2028',
];

function withinLength(min: number, max: number) {
  return (text: string) => text.length >= min && text.length <= max;
}

function freeText(min: number, max: number): fc.Arbitrary<string> {
  const cap = Math.min(max, Math.max(min, MAX_GENERATED_LENGTH));
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: cap }) },
      { weight: 2, arbitrary: fc.string({ minLength: min, maxLength: cap, unit: 'grapheme' }) },
      { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: cap, unit: 'binary' }) },
      {
        weight: 1,
        arbitrary: fc
          .array(fc.constantFrom(...AWKWARD_TEXT), { minLength: Math.max(min, 1), maxLength: Math.max(min, 6) })
          .map((parts) => parts.join('')),
      },
    )
    .map((text) => text.slice(0, max))
    .filter(withinLength(min, max));
}

/** fast-check cannot generate from lookarounds: generate from the pattern without them, keep what the full pattern accepts. */
function withoutLookarounds(pattern: string): string {
  return pattern.replace(/\(\?<?[!=][^()]*\)/g, '');
}

const patternCache = new Map<string, fc.Arbitrary<string>>();
export function matching(pattern: string, min = 0, max = Number.MAX_SAFE_INTEGER): fc.Arbitrary<string> {
  const key = `${pattern}|${min}|${max}`;
  let cached = patternCache.get(key);
  if (!cached) {
    const full = new RegExp(pattern, 'u');
    const generable = withoutLookarounds(pattern);
    const base = fc.stringMatching(new RegExp(generable, 'u'));
    // Now and then a free-text string that happens to match (unicode the pattern allows, for instance).
    cached = fc
      .oneof(
        { weight: 4, arbitrary: base },
        { weight: 1, arbitrary: freeText(Math.max(min, 1), Math.min(max, MAX_GENERATED_LENGTH)) },
      )
      .filter((text) => full.test(text) && text.length >= min && text.length <= max);
    patternCache.set(key, cached);
  }
  return cached;
}

function stringArb(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Number.MAX_SAFE_INTEGER;
  if (schema.pattern) return matching(schema.pattern, min, max);
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'email') return fc.emailAddress().filter(withinLength(min, max));
  if (schema.format === 'uri')
    return fc
      .oneof(
        fc.webUrl(),
        fc.constantFrom('https://admin.corp.example/api/auth/oauth/alpha/callback', 'http://localhost:3000/cb'),
      )
      .filter(withinLength(min, max));
  return freeText(min, max);
}

function numberArb(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const ints = fc.integer({
    min: Math.max(min ?? Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
    max: Math.min(max ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  });
  const small = min === undefined && max === undefined ? fc.integer({ min: -3, max: 1000 }) : ints;
  if (integer) return fc.oneof(small, ints);
  const doubles = fc.double({ noNaN: true, noDefaultInfinity: true, min, max });
  return fc.oneof(small, ints, doubles);
}

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.additionalProperties !== undefined) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

function objectArb(schema: JsonSchema, context: GenerationContext): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  if (names.length > 0) {
    const model = Object.fromEntries(names.map((name) => [name, valueArbitrary(properties[name]!, context, name)]));
    return fc.record(model, { requiredKeys: (schema.required ?? []).filter((name) => names.includes(name)) });
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    const keys = schema.propertyNames?.pattern ? matching(schema.propertyNames.pattern) : freeText(1, 20);
    return fc.dictionary(keys, valueArbitrary(schema.additionalProperties, context), { maxKeys: MAX_GENERATED_ITEMS });
  }
  return fc.constant({});
}

function rawArbitrary(schema: JsonSchema, context: GenerationContext): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => valueArbitrary(alternative, context)));
  const types = typesOf(schema);
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'string':
          return stringArb(schema);
        case 'integer':
          return numberArb(schema, true);
        case 'number':
          return numberArb(schema, false);
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array':
          return fc.array(valueArbitrary(schema.items ?? {}, context), {
            minLength: schema.minItems ?? 0,
            maxLength: Math.max(
              schema.minItems ?? 0,
              Math.min(schema.maxItems ?? MAX_GENERATED_ITEMS, MAX_GENERATED_ITEMS),
            ),
          });
        case 'object':
          return objectArb(schema, context);
        default:
          throw new Error(`schema type ${type} is not supported by the fuzzer`);
      }
    }),
  );
}

/** A value the schema accepts; `name` (a property or parameter name) brings in the context's hints. */
export function valueArbitrary(
  schema: JsonSchema,
  context: GenerationContext = NO_HINTS,
  name?: string,
): fc.Arbitrary<unknown> {
  const generated = rawArbitrary(schema, context);
  const hints = name === undefined ? undefined : context.hintsFor(name);
  return hints ? fc.oneof({ weight: 2, arbitrary: hints }, { weight: 1, arbitrary: generated }) : generated;
}
