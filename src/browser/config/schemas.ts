// Request and response shapes of /api/graph/config.
import { z } from 'zod';

export const ConfigNameSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be a configuration parameter name such as TIMEOUT');
export const ConfigParamsSchema = z.object({ config: ConfigNameSchema });
export const ConfigValueSchema = z.union([z.number(), z.string()]);
/**
 * The seed puts `value` in the query string; a JSON body's `value` is moved there before validation. It stays
 * optional in the schema because either place may carry it; the service answers `Missing parameter value`.
 */
export const SetValueQuerySchema = z.object({ value: z.string().max(1024).optional() });
export const SetValueBodySchema = z.object({ value: z.union([z.string().max(1024), z.number()]).optional() }).nullish();
export const ConfigListSchema = z.object({ configs: z.record(z.string(), ConfigValueSchema) });
export const ConfigReadSchema = z.object({ config: ConfigValueSchema });
export const ConfigSetSchema = z.object({ config: z.literal('OK') });
