// Request and response shapes of /api/graph/config.
import { z } from 'zod';
import { requiredString } from '../graphs/schemas.js';

export const ConfigNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be a configuration parameter name such as TIMEOUT');
export const ConfigParamsSchema = z.object({
  config: ConfigNameSchema.meta({ description: 'A FalkorDB configuration parameter', examples: ['TIMEOUT'] }),
});
export const ConfigValueSchema = z
  .union([z.number(), z.string()])
  .meta({ description: 'The value: a number for numeric parameters, else the text FalkorDB answers' });
/**
 * The browser API specification puts `value` in the query string, required; a JSON body's `value` (the FalkorDB Browser) is moved there
 * before validation, so either place may carry it.
 */
export const SetValueQuerySchema = z.object({
  value: requiredString('value')
    .max(1024)
    .meta({ description: 'The new value (a JSON body `value` is accepted instead)', examples: ['1000'] }),
});
export const SetValueBodySchema = z
  .object({
    value: z
      .union([z.string().max(1024), z.number()])
      .optional()
      .meta({ description: 'The new value, as the FalkorDB Browser sends it (the query string wins)' }),
  })
  .nullish()
  .meta({ examples: [{ value: 1000 }] });
export const ConfigListSchema = z
  .object({
    configs: z.record(z.string(), ConfigValueSchema).meta({ description: 'Every configuration parameter, by name' }),
  })
  .meta({ examples: [{ configs: { TIMEOUT: 0, MAX_QUEUED_QUERIES: 25, RESULTSET_SIZE: 10000, CMD_INFO: 'yes' } }] });
export const ConfigReadSchema = z.object({ config: ConfigValueSchema }).meta({ examples: [{ config: 1000 }] });
export const ConfigSetSchema = z
  .object({ config: z.literal('OK').meta({ description: 'Always `OK`' }) })
  .meta({ examples: [{ config: 'OK' }] });
