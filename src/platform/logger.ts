// The logging surface platform adapters need; satisfied by pino loggers and Fastify's.
export interface PlatformLogger {
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}
