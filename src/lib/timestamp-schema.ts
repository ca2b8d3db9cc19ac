// Timestamps the server writes (Date#toISOString, Kubernetes' RFC 3339 times): a string documented as
// `format: date-time`, so clients generate a date type for it. Documentation only: the value is not re-checked on
// the way out, so a store's older spelling still serializes as before.
import { z } from 'zod';

export function timestamp(description: string) {
  return z.string().meta({ format: 'date-time', description });
}
