// The API document as client developers read it: every operation shows an example of its request body and of its
// success response, every example is valid against the schema it sits beside (so an example cannot lie), and every
// parameter and schema property says what it is. Reads openapi/openapi.json, which openapi.test.ts keeps equal to
// the generated document.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../scripts/export-openapi.js';

type Node = Record<string, unknown>;
interface Media {
  schema?: Node;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; description?: string; schema?: Node; example?: unknown }[];
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, Node> };
}

const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Document;
const COMPONENT = '#/components/schemas/';

const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
);

function resolve(schema: Node | undefined): Node | undefined {
  const ref = schema?.$ref;
  if (typeof ref === 'string' && ref.startsWith(COMPONENT))
    return document.components.schemas?.[decodeURIComponent(ref.slice(COMPONENT.length))];
  return schema;
}

/** A media type shows an example when it carries one itself or its (referenced) schema does. */
function hasExample(media: Media): boolean {
  if (media.example !== undefined || Object.keys(media.examples ?? {}).length > 0) return true;
  const examples = resolve(media.schema)?.examples;
  return Array.isArray(examples) && examples.length > 0;
}

/** What an operation lacks: an example of each request body media type and of each success response's. */
function missingExamples(op: Operation): string[] {
  const missing: string[] = [];
  for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
    if (!hasExample(media)) missing.push(`request ${type}`);
  const success = Object.entries(op.responses).filter(([status]) => /^2/.test(status));
  for (const [status, response] of success)
    for (const [type, media] of Object.entries(response.content ?? {}))
      if (media.schema && !hasExample(media)) missing.push(`${status} ${type}`);
  return missing;
}

/** Every example in the document, with the JSON pointer of the schema it must satisfy. */
function examplesOf(doc: Document): { pointer: string; value: unknown }[] {
  const found: { pointer: string; value: unknown }[] = [];
  const escape = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
  const visit = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, `${pointer}/${index}`));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const object = node as Node;
    // A media type or parameter: `example` / `examples` beside `schema`.
    if (object.schema && typeof object.schema === 'object') {
      if ('example' in object) found.push({ pointer: `${pointer}/schema`, value: object.example });
      if (object.examples && typeof object.examples === 'object' && !Array.isArray(object.examples))
        for (const example of Object.values(object.examples as Record<string, { value?: unknown }>))
          found.push({ pointer: `${pointer}/schema`, value: example.value });
    }
    // A schema: JSON Schema's `examples` array (and OpenAPI's older `example`) beside its keywords.
    const isSchema = typeof object.type === 'string' || Array.isArray(object.type) || 'properties' in object;
    if (isSchema && Array.isArray(object.examples)) for (const value of object.examples) found.push({ pointer, value });
    if (isSchema && 'example' in object) found.push({ pointer, value: object.example });
    for (const [key, value] of Object.entries(object)) {
      if (key === 'example' || key === 'examples') continue;
      visit(value, `${pointer}/${escape(key)}`);
    }
  };
  visit(doc.paths, '#/paths');
  visit(doc.components.schemas, '#/components/schemas');
  return found;
}

/** Checks each example against its schema, resolving the document's own $refs; answers one line per failure. */
function invalidExamples(doc: Document): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  // RFC 3339 date-time, as the server writes it (toISOString) or with an offset; uri and binary are not checked.
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i);
  ajv.addFormat('uri', true);
  ajv.addFormat('binary', true);
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  const failures: string[] = [];
  for (const { pointer, value } of examplesOf(doc)) {
    const validate = ajv.compile({ $ref: `openapi.json${pointer}` });
    if (!validate(value))
      failures.push(`${pointer}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 200)}`);
  }
  return failures;
}

/** Parameters and properties without a description; a property that is a $ref may take its component's. */
function undescribed(doc: Document): { parameters: string[]; properties: string[] } {
  const parameters = operations.flatMap(({ where, op }) =>
    (op.parameters ?? []).filter((p) => !p.description?.trim()).map((p) => `${where} ${p.in} ${p.name}`),
  );
  const properties = new Set<string>();
  const visit = (node: unknown, where: string): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, where);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const object = node as Node;
    if (object.properties && typeof object.properties === 'object' && !Array.isArray(object.properties)) {
      for (const [name, property] of Object.entries(object.properties as Record<string, Node>)) {
        // A map whose values are not schemas is not a `properties` keyword (a schema's own field called `properties`).
        if (property === null || typeof property !== 'object') continue;
        const described = property.description ?? resolve(property)?.description;
        if (typeof described !== 'string' || described.trim() === '') properties.add(`${where}: ${name}`);
      }
    }
    // Examples are values, not schemas: an example object with a `properties` key describes nothing.
    for (const [key, value] of Object.entries(object)) if (key !== 'example' && key !== 'examples') visit(value, where);
  };
  for (const { where, op } of operations) visit(op, where);
  for (const [name, schema] of Object.entries(doc.components.schemas ?? {})) visit(schema, name);
  return { parameters, properties: [...properties] };
}

describe('examples in the API document', () => {
  it('show the request body and the success response of every operation', () => {
    const lacking = operations
      .map(({ where, op }) => ({ where, id: op.operationId, missing: missingExamples(op) }))
      .filter(({ missing }) => missing.length > 0);
    // Every operation: a new one comes with its examples (the schema's `.meta({ examples: [...] })` in its schemas.ts).
    expect(lacking.map(({ where, id, missing }) => `${id} (${where}): ${missing.join(', ')}`)).toEqual([]);
  });

  it('are each valid against the schema beside them', () => {
    const examples = examplesOf(document);
    expect(examples.length).toBeGreaterThan(0);
    expect(invalidExamples(document)).toEqual([]);
  });

  it('are refused when they do not match their schema (the check can say no)', () => {
    const lying = structuredClone(document);
    const [path, methods] = Object.entries(lying.paths)[0]!;
    const op = Object.values(methods)[0]!;
    op.responses['299'] = {
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { count: { type: 'integer' }, at: { type: 'string', format: 'date-time' } },
            required: ['count'],
            examples: [{ count: 'three' }, { at: 'yesterday' }],
          },
          example: { count: 1.5 },
        },
      },
    };
    const failures = invalidExamples(lying);
    expect(failures.filter((line) => line.includes(`/${path.replaceAll('/', '~1')}/`))).toHaveLength(3);
  });
});

describe('descriptions in the API document', () => {
  it('describe every parameter and every schema property', () => {
    const { parameters, properties } = undescribed(document);
    const message = (list: string[]) => `${list.length} undescribed:\n${list.join('\n')}`;
    expect(parameters, message(parameters)).toEqual([]);
    expect(properties, message(properties)).toEqual([]);
  });
});
