// What Node's HTTP parser refuses before any route runs (a header block over maxHeaderSize, a request not received
// within the request timeout, malformed HTTP), answered in the error shape of the API that owns the path.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, type ErrorShape } from './error-shapes.js';
import type { ErrorCode } from './error-codes.js';

interface ParserError extends Error {
  code?: string;
  /** The bytes the parser had when it failed (not present on timeouts). */
  rawPacket?: unknown;
}

// No `HTTP/x` at the end: a request line longer than the prefix read (a 64 KiB path) must still be recognised,
// and the start of the path is enough to tell which API owns it.
const REQUEST_LINE = /^[A-Z]+ (\S+)/;

/** The path (or its start) of the request line, when the parser got that far. */
function targetOf(error: ParserError): string | undefined {
  if (!Buffer.isBuffer(error.rawPacket)) return undefined;
  return REQUEST_LINE.exec(error.rawPacket.subarray(0, 8192).toString('latin1'))?.[1];
}

export const REQUEST_NOT_RECEIVED = 'The request was not received in time';

function statusOf(error: ParserError): { status: number; message: string; code: ErrorCode } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, message: REQUEST_NOT_RECEIVED, code: 'request_timeout' };
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, message: 'Request headers are too large', code: 'headers_too_large' };
  return { status: 400, message: 'Malformed HTTP request', code: 'malformed_request' };
}

/**
 * `shapeOf` decides the body shape from the path: the request line's when the parser failed, or that of the
 * request still being received on the socket when it timed out (`track` records each request as it arrives).
 * Without a known path (headers not complete in time) the admin shape is used, which carries `message` as well.
 */
export function createClientErrors(shapeOf: (url: string) => ErrorShape) {
  const receiving = new WeakMap<Socket, { request: IncomingMessage; response: ServerResponse }>();
  return {
    track: (request: IncomingMessage, response: ServerResponse): void => {
      receiving.set(request.socket, { request, response });
    },
    handler: (error: ParserError, socket: Socket): void => {
      // A reset connection has nobody left to answer.
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const { status, message, code } = statusOf(error);
      const current = receiving.get(socket);
      const incomplete = current && !current.request.complete ? current : undefined;
      const target = targetOf(error) ?? incomplete?.request.url;
      const body = JSON.stringify(errorBody(target ? shapeOf(target) : 'admin', status, message, code));
      // A response already under way (e.g. the handler timed out first) must not be followed by a second one.
      if (socket.writable && !incomplete?.response.headersSent) {
        socket.write(
          `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
    },
  };
}
