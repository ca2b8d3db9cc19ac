// Request and response shapes of the node, label and property routes.
import { z } from 'zod';
import { printableString } from '../../lib/printable.js';
import { verbatim } from '../../lib/verbatim-messages.js';
import { GraphPathNameSchema, NodeSchema, RelationshipSchema } from '../graphs/schemas.js';

const EntityIdSchema = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a non-negative integer id')
  .transform(Number)
  .refine(Number.isSafeInteger, 'must be a non-negative integer id')
  .meta({ description: "The node's or relationship's internal id", examples: ['12'] });

/** Backticks cannot be escaped in FalkorDB identifiers, so names containing them are refused. */
const IdentifierSchema = (what: string) => printableString({ max: 256, alsoRefused: '`', what });

export const NodeParamsSchema = z.object({ graph: GraphPathNameSchema, node: EntityIdSchema });
export const PropertyParamsSchema = NodeParamsSchema.extend({
  key: IdentifierSchema('property key').meta({ description: 'The property key', examples: ['name'] }),
});

const entityKind = z.boolean({
  error: (issue) =>
    issue.input === undefined
      ? verbatim('Missing parameter type')
      : verbatim('Invalid parameter type: must be true (node) or false (relationship)'),
});
const entityKindField = entityKind.meta({ description: '`true`: a node; `false`: a relationship' });
export const TypeBodySchema = z.object({ type: entityKindField }).meta({ examples: [{ type: true }] });
export const LabelBodySchema = z
  .object({ label: IdentifierSchema('label').meta({ description: 'The label' }) })
  .meta({ examples: [{ label: 'Person' }] });
const ScalarSchema = z.union([
  z.string().max(1_000_000),
  z.number().refine(Number.isFinite, 'must be a finite number'),
  z.boolean(),
]);
const PropertyValueSchema = z.union([ScalarSchema, z.array(ScalarSchema).max(100_000)], {
  error: (issue) =>
    issue.input === undefined
      ? verbatim('Missing parameter value')
      : 'must be a string, a finite number, a boolean, or an array of those',
});
export const PropertyBodySchema = z
  .object({
    value: PropertyValueSchema.meta({ description: 'The new value: a string, number, boolean or an array of those' }),
    type: entityKindField,
  })
  .meta({ examples: [{ value: 'Ada Lovelace', type: true }] });

export const NodeReadSchema = z
  .object({
    result: z
      .object({
        data: z
          .array(
            z.object({
              node: NodeSchema,
              relationships: z
                .array(RelationshipSchema)
                .meta({ description: "The node's relationships, either direction, in the shape query rows use" }),
            }),
          )
          .meta({ description: 'One item: the node and its relationships' }),
      })
      .meta({ description: 'The node' }),
  })
  .meta({
    examples: [
      {
        result: {
          data: [
            {
              node: { id: 12, labels: ['Person'], properties: { name: 'Ada', born: 1815 } },
              relationships: [
                { id: 3, relationshipType: 'KNOWS', sourceId: 12, destinationId: 14, properties: { since: 1833 } },
              ],
            },
          ],
        },
      },
    ],
  });

/** `POST /api/graph/{graph}/{element}` as the FalkorDB Browser sends it. */
export const CreateEntityBodySchema = z
  .object({
    type: entityKindField,
    label: z
      .array(IdentifierSchema('label'))
      .max(32)
      .default([])
      .meta({ description: "A node's labels; a relationship's type (exactly one)" }),
    attributes: z
      .array(z.tuple([IdentifierSchema('property key'), PropertyValueSchema]))
      .max(1000)
      .default([])
      .meta({ description: 'The properties, as `[key, value]` pairs' }),
    selectedNodes: z
      .array(z.object({ id: z.number().int().min(0).meta({ description: "A node's internal id" }) }))
      .optional()
      .meta({ description: "A relationship's source and target node (two entries; nodes ignore it)" }),
  })
  .superRefine((body, context) => {
    if (body.type) return;
    if (body.label.length !== 1)
      context.addIssue({ code: 'custom', path: ['label'], message: 'a relationship needs exactly one type' });
    if (body.selectedNodes?.length !== 2)
      context.addIssue({
        code: 'custom',
        path: ['selectedNodes'],
        message: 'a relationship needs its source and target node: two entries',
      });
  })
  .meta({
    examples: [
      { type: true, label: ['Person'], attributes: [['name', 'Ada']] },
      { type: false, label: ['KNOWS'], attributes: [['since', 1833]], selectedNodes: [{ id: 0 }, { id: 1 }] },
    ],
  });
/** The element segment is a placeholder; it must still be a segment (not empty, not `.` or `..`, which URLs remove). */
export const CreateEntityParamsSchema = z.object({
  graph: GraphPathNameSchema,
  node: z
    .string()
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
    .regex(/^(?!\.{1,2}$)[^/\u0000-\u001f\u007f]{1,256}$/, 'must be one path segment')
    .meta({ description: 'Any one path segment (the FalkorDB Browser sends a placeholder)', examples: ['new'] }),
});
export const CreateEntityResponseSchema = z
  .object({
    result: z
      .object({
        data: z.array(z.record(z.string(), z.unknown())).meta({
          description: 'One row: the new node under the key `n` or the new relationship under the key `e`',
        }),
      })
      .meta({ description: 'What was created' }),
  })
  .meta({
    examples: [
      { result: { data: [{ n: { id: 12, labels: ['Person'], properties: { name: 'Ada' } } }] } },
      {
        result: {
          data: [
            { e: { id: 3, relationshipType: 'KNOWS', sourceId: 0, destinationId: 1, properties: { since: 1833 } } },
          ],
        },
      },
    ],
  });
