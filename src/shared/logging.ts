// pino options shared by the process and the tests: what gets redacted and how a request is summarised.
import type { FastifyRequest } from 'fastify';
import type { LoggerOptions } from 'pino';

/** Paths pino replaces with "[Redacted]" wherever they appear in a log object. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.currentPassword',
  '*.newPassword',
  '*.secret',
  '*.client_secret',
  '*.clientSecret',
  '*.private_key',
  '*.privateKey',
  '*.token',
  '*.accessToken',
  '*.access_token',
  '*.refreshToken',
  '*.refresh_token',
  '*.id_token',
  '*.idToken',
  '*.authSecret',
  '*.encryptionKey',
  '*.sessionSecret',
  'password',
  'token',
  'secret',
];

/** OAuth callbacks carry `code` and `state` in the query string: those paths are logged without it. */
const QUERY_FREE_PATHS = /^\/api\/auth\/oauth(\/|\?|$)/;

export function loggableUrl(url: string): string {
  if (!QUERY_FREE_PATHS.test(url)) return url;
  const queryStart = url.indexOf('?');
  return queryStart === -1 ? url : url.slice(0, queryStart);
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    serializers: {
      req(request: FastifyRequest) {
        return {
          method: request.method,
          url: loggableUrl(request.url),
          remoteAddress: request.ip,
        };
      },
    },
  };
}
