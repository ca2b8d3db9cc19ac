// Request and response shapes of the node, label and property routes.
import { z } from 'zod';
import { printableString } from '../../lib/printable.js';
import { verbatim } from '../../lib/verbatim-messages.js';
import { GraphPathNameSchema } from '../graphs/schemas.js';

const EntityIdSchema = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a non-negative integer id')
  .transform(Number)
  .refine(Number.isSafeInteger, 'must be a non-negative integer id');

/** Backticks cannot be escaped in FalkorDB identifiers, so names containing them are refused. */
const IdentifierSchema = (what: string) => printableString({ max: 256, alsoRefused: '`', what });

export const NodeParamsSchema = z.object({ graph: GraphPathNameSchema, node: EntityIdSchema });
export const PropertyParamsSchema = NodeParamsSchema.extend({ key: IdentifierSchema('property key') });

const entityKind = z.boolean({
  error: (issue) =>
    issue.input === undefined
      ? verbatim('Missing parameter type')
      : verbatim('Invalid parameter type: must be true (node) or false (relationship)'),
});
export const TypeBodySchema = z.object({ type: entityKind });
export const LabelBodySchema = z.object({ label: IdentifierSchema('label') });
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
export const PropertyBodySchema = z.object({ value: PropertyValueSchema, type: entityKind });

const PropertiesSchema = z.record(z.string(), z.unknown());
export const NodeReadSchema = z.object({
  result: z.object({
    data: z.array(
      z.object({
        node: z.object({ id: z.number().int(), labels: z.array(z.string()), properties: PropertiesSchema }),
        relationships: z.array(
          z.object({
            id: z.number().int(),
            type: z.string(),
            source: z.number().int(),
            target: z.number().int(),
            properties: PropertiesSchema,
          }),
        ),
      }),
    ),
  }),
});

/** `POST /api/graph/{graph}/{element}` as the FalkorDB Browser sends it. */
export const CreateEntityBodySchema = z
  .object({
    type: entityKind,
    label: z.array(IdentifierSchema('label')).max(32).default([]),
    attributes: z
      .array(z.tuple([IdentifierSchema('property key'), PropertyValueSchema]))
      .max(1000)
      .default([]),
    selectedNodes: z.array(z.object({ id: z.number().int().min(0) })).optional(),
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
  });
/** The element segment is a placeholder; it must still be a segment (not empty, not `.` or `..`, which URLs remove). */
export const CreateEntityParamsSchema = z.object({
  graph: GraphPathNameSchema,
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  node: z.string().regex(/^(?!\.{1,2}$)[^/\u0000-\u001f\u007f]{1,256}$/, 'must be one path segment'),
});
export const CreateEntityResponseSchema = z.object({
  result: z.object({ data: z.array(z.record(z.string(), z.unknown())) }),
});
