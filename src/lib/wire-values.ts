// Whole numbers and booleans as both APIs read them. A query string carries only text, and `z.coerce` reads too
// much into it: `Number` turns "", " 3", "1e2" and "0x10" into numbers, and `Boolean("false")` is true. So a query
// parameter takes the plain spelling only (digits; `true` or `false`) and is documented with its real type, which
// is how generated clients already write it. A body field the browser API fixes as a string (`port`, `tls`)
// takes that string or the JSON value, and the document lists both.
import { z } from 'zod';

const DIGITS = /^\d{1,16}$/;

const digitsAsNumber = (value: unknown): unknown =>
  typeof value === 'string' && DIGITS.test(value) ? Number(value) : value;
const wordAsBoolean = (value: unknown): unknown => (value === 'true' ? true : value === 'false' ? false : value);

/**
 * A query parameter read as a number when it is written in digits, then checked by `schema` (whose optional or
 * default also says whether the parameter is required, in the document too).
 */
export function queryInteger<T extends z.ZodType>(schema: T) {
  return z.preprocess(digitsAsNumber, schema);
}

/** A query parameter read as a boolean when it is `true` or `false`, then checked by `schema`. */
export function queryBoolean<T extends z.ZodType>(schema: T) {
  return z.preprocess(wordAsBoolean, schema);
}

/** A whole number from `min` to `max`, with one message for anything else. */
export function wholeNumber(min: number, max: number, message = `must be a whole number from ${min} to ${max}`) {
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
}

/** `true` or `false`, with one message for anything else. */
export function trueOrFalse() {
  return z.boolean({ error: 'must be true or false' });
}

/** A body field holding a whole number from `min` to `max`: a JSON integer, or a string of digits. */
export function integerOrDigits(min: number, max: number, message: string) {
  const digits = new RegExp(`^\\d{1,${String(max).length}}$`);
  return z
    .union(
      [
        z.string().regex(digits, message).meta({ description: 'The number as a string of digits' }),
        z
          .number()
          .int(message)
          .min(min, message)
          .max(max, message)
          .meta({ description: 'The number as a JSON integer' }),
      ],
      { error: message },
    )
    .transform(Number)
    .refine((value) => value >= min && value <= max, message);
}

/** A body field holding a boolean: a JSON boolean, or the string `true` or `false`. */
export function booleanOrWord(message: string) {
  return z
    .union(
      [
        z.enum(['true', 'false']).meta({ description: 'The string `true` or `false`' }),
        z.boolean().meta({ description: 'A JSON boolean' }),
      ],
      { error: message },
    )
    .transform((value) => value === true || value === 'true');
}
