// The two error body shapes: the browser API answers {message, code}; the admin API {statusCode, error, message,
// code}. `code` is one of the fixed list in error-codes.ts.
import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import { ERROR_CODE_LIST, type ErrorCode } from './error-codes.js';

export type ErrorShape = 'browser' | 'admin';

// One list for both APIs (each API's guide lists the codes it answers), so a client shares one type for them.
export const ErrorCodeSchema = z.enum(ERROR_CODE_LIST).meta({
  id: 'ErrorCode',
  description: 'Stable, machine-readable reason of the error (the list is under Errors in the API guide).',
  example: 'not_found',
});
const MessageSchema = z
  .string()
  .meta({ description: 'What went wrong, for a person; its wording may change.', example: 'Graph movies not found' });

export const BrowserErrorSchema = z.object({ message: MessageSchema, code: ErrorCodeSchema }).meta({
  id: 'BrowserError',
  description: 'Error body of the browser API.',
  example: { message: 'Graph movies not found', code: 'not_found' },
});
export const AdminErrorSchema = z
  .object({
    statusCode: z.number().int().meta({ description: 'The HTTP status, repeated.', example: 404 }),
    error: z.string().meta({ description: "The HTTP status's reason phrase.", example: 'Not Found' }),
    message: MessageSchema,
    code: ErrorCodeSchema,
  })
  .meta({
    id: 'AdminError',
    description: 'Error body of the admin API.',
    example: { statusCode: 404, error: 'Not Found', message: 'User a@example.com not found', code: 'not_found' },
  });

export type BrowserErrorBody = z.infer<typeof BrowserErrorSchema>;
export type AdminErrorBody = z.infer<typeof AdminErrorSchema>;

export function statusPhrase(statusCode: number): string {
  return STATUS_CODES[statusCode] ?? 'Error';
}

export function errorBody(
  shape: ErrorShape,
  statusCode: number,
  message: string,
  code: ErrorCode,
): BrowserErrorBody | AdminErrorBody {
  switch (shape) {
    case 'browser':
      return { message, code };
    case 'admin':
      return { statusCode, error: statusPhrase(statusCode), message, code };
  }
}

export function errorSchemaFor(shape: ErrorShape): typeof BrowserErrorSchema | typeof AdminErrorSchema {
  return shape === 'browser' ? BrowserErrorSchema : AdminErrorSchema;
}
