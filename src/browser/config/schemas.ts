// Request and response shapes of /api/graph/config.
import { z } from 'zod';
import { requiredString } from '../graphs/schemas.js';

export const ConfigNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be a configuration parameter name such as TIMEOUT');
export const ConfigParamsSchema = z.object({ config: ConfigNameSchema });
export const ConfigValueSchema = z.union([z.number(), z.string()]);
/**
 * The browser API specification puts `value` in the query string, required; a JSON body's `value` (the FalkorDB Browser) is moved there
 * before validation, so either place may carry it.
 */
export const SetValueQuerySchema = z.object({ value: requiredString('value').max(1024) });
export const SetValueBodySchema = z.object({ value: z.union([z.string().max(1024), z.number()]).optional() }).nullish();
export const ConfigListSchema = z.object({ configs: z.record(z.string(), ConfigValueSchema) });
export const ConfigReadSchema = z.object({ config: ConfigValueSchema });
export const ConfigSetSchema = z.object({ config: z.literal('OK') });
