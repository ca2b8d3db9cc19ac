// Names and secrets that end up in headers, logs and commands: any character but control characters (which would
// corrupt those), optionally minus a few the target cannot escape.
import { z } from 'zod';

// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface PrintableOptions {
  max: number;
  /** Characters refused besides control characters, e.g. a backtick FalkorDB cannot escape. */
  alsoRefused?: string;
  /** How the refusal names the value: `label must not contain …`. */
  what?: string;
}

const escapeForClass = (characters: string) => characters.replace(/[\\\]^-]/g, (c) => `\\${c}`);

export function printableString({ max, alsoRefused = '', what }: PrintableOptions) {
  const refused = alsoRefused
    ? `${[...alsoRefused].map((c) => (c === '`' ? 'backticks' : c)).join(', ')} or control characters`
    : 'control characters';
  // A pattern rather than a refinement, so the OpenAPI document carries it.
  const allowed = new RegExp(`^[^${escapeForClass(alsoRefused)}\\u0000-\\u001f\\u007f]+$`);
  return z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(allowed, `${what ? `${what} ` : ''}must not contain ${refused}`);
}

/** True when `value` holds a control character (for checks outside a schema, such as a `returnTo` path). */
export function hasControlCharacter(value: string): boolean {
  return CONTROL.test(value);
}
