// /api/graph/{graph}/{node}[/label | /{key}]: read, delete, labels and properties of nodes and relationships.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BEARER_SCHEME } from '../../shared/openapi.js';
import { verbatim } from '../../shared/verbatim-messages.js';
import { requireRole } from '../auth/roles.js';
import { databaseFor, principalOf, type BrowserContext } from '../context.js';
import { translated } from '../database/database-errors.js';
import { GraphNameSchema, MessageSchema } from '../graphs/schemas.js';
import { addLabel, deleteEntity, readNode, removeLabel, removeProperty, setProperty } from './node-service.js';

const security = [{ [BEARER_SCHEME]: [] }];
const tags = ['nodes'];

const EntityIdSchema = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a non-negative integer id')
  .transform(Number)
  .refine(Number.isSafeInteger, 'must be a non-negative integer id');

/** Backticks cannot be escaped in FalkorDB identifiers, so names containing them are refused. */
const IdentifierSchema = (what: string) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(256, 'must be at most 256 characters')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
    .regex(/^[^`\u0000-\u001f\u007f]+$/, `${what} must not contain backticks or control characters`);

const NodeParamsSchema = z.object({ graph: GraphNameSchema, node: EntityIdSchema });
const PropertyParamsSchema = NodeParamsSchema.extend({ key: IdentifierSchema('property key') });

const entityKind = z.boolean({
  error: (issue) => (issue.input === undefined ? verbatim('Missing parameter type') : verbatim('Invalid parameter type: must be true (node) or false (relationship)')),
});
const TypeBodySchema = z.object({ type: entityKind });
const LabelBodySchema = z.object({ label: IdentifierSchema('label') });
const ScalarSchema = z.union([z.string().max(1_000_000), z.number().refine(Number.isFinite, 'must be a finite number'), z.boolean()]);
const PropertyValueSchema = z.union([ScalarSchema, z.array(ScalarSchema).max(100_000)], {
  error: (issue) => (issue.input === undefined ? verbatim('Missing parameter value') : 'must be a string, a finite number, a boolean, or an array of those'),
});
const PropertyBodySchema = z.object({ value: PropertyValueSchema, type: entityKind });

const PropertiesSchema = z.record(z.string(), z.unknown());
const NodeReadSchema = z.object({
  result: z.object({
    data: z.array(
      z.object({
        node: z.object({ id: z.number().int(), labels: z.array(z.string()), properties: PropertiesSchema }),
        relationships: z.array(z.object({ id: z.number().int(), type: z.string(), source: z.number().int(), target: z.number().int(), properties: PropertiesSchema })),
      }),
    ),
  }),
});

export function nodeRoutes(app: FastifyInstance, context: BrowserContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const db = (request: Parameters<typeof principalOf>[0]) => databaseFor(context, principalOf(request));
  const errors = { errorResponses: [404] };
  const writer = (action: string) => requireRole('Read-Write', action);

  routes.get(
    '/api/graph/:graph/:node',
    { config: errors, schema: { operationId: 'readNode', tags, summary: 'A node with its relationships', security, params: NodeParamsSchema, response: { 200: NodeReadSchema } } },
    async (request) => ({ result: { data: [await translated(() => readNode(db(request), request.params.graph, request.params.node))] } }),
  );

  routes.delete(
    '/api/graph/:graph/:node',
    {
      preHandler: writer('deleting nodes and relationships'),
      config: errors,
      schema: { operationId: 'deleteEntity', tags, summary: 'Delete a node (`type: true`) or a relationship (`type: false`)', security, params: NodeParamsSchema, body: TypeBodySchema, response: { 200: MessageSchema } },
    },
    async (request) => ({ message: await translated(() => deleteEntity(db(request), request.params.graph, request.body.type, request.params.node)) }),
  );

  const labelRoutes = [
    { method: 'POST' as const, operationId: 'addLabel', summary: 'Add a label to a node', change: addLabel, message: 'Label added' },
    { method: 'DELETE' as const, operationId: 'removeLabel', summary: 'Remove a label from a node', change: removeLabel, message: 'Label removed' },
  ];
  for (const { method, operationId, summary, change, message } of labelRoutes) {
    routes.route({
      method,
      url: '/api/graph/:graph/:node/label',
      preHandler: writer('changing labels'),
      config: errors,
      schema: { operationId, tags, summary, security, params: NodeParamsSchema, body: LabelBodySchema, response: { 200: MessageSchema } },
      handler: async (request) => {
        await translated(() => change(db(request), request.params.graph, request.params.node, request.body.label));
        return { message };
      },
    });
  }

  routes.post(
    '/api/graph/:graph/:node/:key',
    {
      preHandler: writer('changing properties'),
      config: errors,
      schema: { operationId: 'setProperty', tags, summary: 'Set a property of a node (`type: true`) or relationship (`type: false`)', security, params: PropertyParamsSchema, body: PropertyBodySchema, response: { 200: MessageSchema } },
    },
    async (request) => {
      const { graph, node, key } = request.params;
      await translated(() => setProperty(db(request), graph, request.body.type, node, key, request.body.value));
      return { message: 'Property set' };
    },
  );

  routes.delete(
    '/api/graph/:graph/:node/:key',
    {
      preHandler: writer('changing properties'),
      config: errors,
      schema: { operationId: 'removeProperty', tags, summary: 'Remove a property of a node (`type: true`) or relationship (`type: false`)', security, params: PropertyParamsSchema, body: TypeBodySchema, response: { 200: MessageSchema } },
    },
    async (request) => {
      const { graph, node, key } = request.params;
      await translated(() => removeProperty(db(request), graph, request.body.type, node, key));
      return { message: 'Property removed' };
    },
  );
}
