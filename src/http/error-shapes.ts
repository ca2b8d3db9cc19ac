// The two error body shapes: the browser API answers {message}; the admin API {statusCode, error, message}.
import { STATUS_CODES } from 'node:http';
import { z } from 'zod';

export type ErrorShape = 'browser' | 'admin';

export const BrowserErrorSchema = z.object({ message: z.string() }).meta({ id: 'BrowserError' });
export const AdminErrorSchema = z
  .object({ statusCode: z.number().int(), error: z.string(), message: z.string() })
  .meta({ id: 'AdminError' });

export type BrowserErrorBody = z.infer<typeof BrowserErrorSchema>;
export type AdminErrorBody = z.infer<typeof AdminErrorSchema>;

export function statusPhrase(statusCode: number): string {
  return STATUS_CODES[statusCode] ?? 'Error';
}

export function errorBody(shape: ErrorShape, statusCode: number, message: string): BrowserErrorBody | AdminErrorBody {
  switch (shape) {
    case 'browser':
      return { message };
    case 'admin':
      return { statusCode, error: statusPhrase(statusCode), message };
  }
}

export function errorSchemaFor(shape: ErrorShape): typeof BrowserErrorSchema | typeof AdminErrorSchema {
  return shape === 'browser' ? BrowserErrorSchema : AdminErrorSchema;
}
