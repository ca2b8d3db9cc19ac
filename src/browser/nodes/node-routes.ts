// /api/graph/{graph}/{node}[/label | /{key}]: read, delete, labels and properties of nodes and relationships.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireRole } from '../auth/roles.js';
import { principalOf } from '../context.js';
import { messageSaying } from '../graphs/schemas.js';
import type { NodeService } from './node-service.js';
import {
  CreateEntityBodySchema,
  CreateEntityParamsSchema,
  CreateEntityResponseSchema,
  LabelBodySchema,
  NodeParamsSchema,
  NodeReadSchema,
  PropertyBodySchema,
  PropertyParamsSchema,
  TypeBodySchema,
} from './schemas.js';

const tags = ['nodes'];

/** What the node routes call: the node service. */
export interface NodeRouteDeps {
  nodes: NodeService;
}

export function nodeRoutes(scope: FastifyInstance, { nodes }: NodeRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const errors = { errorResponses: [404] };
  // The FalkorDB Browser's UI sends these routes' JSON bodies without a Content-Type (so as `text/plain`).
  const bodyRoutes = { ...errors, plainTextJson: true };
  const writer = (action: string) => requireRole('Read-Write', action);

  routes.get(
    '/api/graph/:graph/:node',
    {
      config: errors,
      schema: {
        operationId: 'readNode',
        tags,
        summary: 'A node with its relationships',
        description:
          'One node by its internal id with its labels, properties and the relationships that touch it. 404 when the graph or the node does not exist.',
        params: NodeParamsSchema,
        response: { 200: NodeReadSchema },
      },
    },
    async (request) => ({
      result: { data: [await nodes.read(principalOf(request), request.params.graph, request.params.node)] },
    }),
  );

  routes.post(
    '/api/graph/:graph/:node',
    {
      preValidation: writer('creating nodes and relationships'),
      config: bodyRoutes,
      schema: {
        operationId: 'createEntity',
        tags,
        summary: 'Create a node or a relationship',
        description:
          'The FalkorDB Browser’s element creation. `type: true` creates a node with the labels in `label`; `type: false` a relationship of the one type in `label` from `selectedNodes[0]` to `selectedNodes[1]`. `attributes` are `[key, value]` pairs, sent as one map parameter. The last path segment is not read (the browser sends a placeholder). 404 when the graph or an end node does not exist.',
        params: CreateEntityParamsSchema,
        body: CreateEntityBodySchema,
        response: { 200: CreateEntityResponseSchema },
      },
    },
    async (request) => {
      const { type, label, attributes, selectedNodes } = request.body;
      const row = await nodes.create(principalOf(request), request.params.graph, {
        type,
        labels: label,
        properties: Object.fromEntries(attributes),
        // Only a relationship reads its end nodes (the schema has checked there are two); a node ignores them.
        endpoints: type ? undefined : [selectedNodes![0]!.id, selectedNodes![1]!.id],
      });
      return { result: { data: [row] } };
    },
  );

  routes.delete(
    '/api/graph/:graph/:node',
    {
      preValidation: writer('deleting nodes and relationships'),
      config: bodyRoutes,
      schema: {
        operationId: 'deleteEntity',
        tags,
        summary: 'Delete a node (`type: true`) or a relationship (`type: false`)',
        description:
          'Deletes the node (`type: true`) or the relationship (`type: false`) with internal id `node`. Needs the Read-Write or Admin role. 404 when the graph does not exist.',
        params: NodeParamsSchema,
        body: TypeBodySchema,
        response: { 200: messageSaying('Node 12 deleted', 'Relationship 3 deleted') },
      },
    },
    async (request) => ({
      message: await nodes.remove(principalOf(request), request.params.graph, request.body.type, request.params.node),
    }),
  );

  const labelRoutes = [
    {
      method: 'POST' as const,
      operationId: 'addLabel',
      summary: 'Add a label to a node',
      description:
        'Adds the labels in the body to node `node`. Needs the Read-Write or Admin role. 404 when the graph does not exist.',
      change: nodes.addLabel,
      message: 'Label added',
    },
    {
      method: 'DELETE' as const,
      operationId: 'removeLabel',
      summary: 'Remove a label from a node',
      description:
        'Removes the labels in the body from node `node`. Needs the Read-Write or Admin role. 404 when the graph does not exist.',
      change: nodes.removeLabel,
      message: 'Label removed',
    },
  ];
  for (const { method, operationId, summary, description, change, message } of labelRoutes) {
    routes.route({
      method,
      url: '/api/graph/:graph/:node/label',
      preValidation: writer('changing labels'),
      config: bodyRoutes,
      schema: {
        operationId,
        tags,
        summary,
        description,
        params: NodeParamsSchema,
        body: LabelBodySchema,
        response: { 200: messageSaying(message) },
      },
      handler: async (request) => {
        await change(principalOf(request), request.params.graph, request.params.node, request.body.label);
        return { message };
      },
    });
  }

  routes.post(
    '/api/graph/:graph/:node/:key',
    {
      preValidation: writer('changing properties'),
      config: bodyRoutes,
      schema: {
        operationId: 'setProperty',
        tags,
        summary: 'Set a property of a node (`type: true`) or relationship (`type: false`)',
        description:
          'Sets property `key` of a node (`type: true`) or a relationship (`type: false`) to the value in the body. Needs the Read-Write or Admin role. 404 when the graph does not exist.',
        params: PropertyParamsSchema,
        body: PropertyBodySchema,
        response: { 200: messageSaying('Property set') },
      },
    },
    async (request) => {
      const { graph, node, key } = request.params;
      await nodes.setProperty(principalOf(request), graph, request.body.type, node, key, request.body.value);
      return { message: 'Property set' };
    },
  );

  routes.delete(
    '/api/graph/:graph/:node/:key',
    {
      preValidation: writer('changing properties'),
      config: bodyRoutes,
      schema: {
        operationId: 'removeProperty',
        tags,
        summary: 'Remove a property of a node (`type: true`) or relationship (`type: false`)',
        description:
          'Removes property `key` from a node (`type: true`) or a relationship (`type: false`). Needs the Read-Write or Admin role. 404 when the graph does not exist.',
        params: PropertyParamsSchema,
        body: TypeBodySchema,
        response: { 200: messageSaying('Property removed') },
      },
    },
    async (request) => {
      const { graph, node, key } = request.params;
      await nodes.removeProperty(principalOf(request), graph, request.body.type, node, key);
      return { message: 'Property removed' };
    },
  );
}
