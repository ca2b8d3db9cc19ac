// The CLI's exit codes, and the error that carries one.
export const EXIT = {
  ok: 0,
  other: 1,
  usage: 2,
  auth: 3,
  forbidden: 4,
  notFound: 5,
  timeout: 6,
  interrupted: 130,
} as const;

export const EXIT_CODES_HELP =
  'Exit codes: 0 ok, 1 other error (server unreachable, failed operation), 2 usage, 3 not signed in / session expired, 4 forbidden, 5 not found, 6 --wait timed out.';

export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function exitCodeForStatus(status: number): number {
  if (status === 401) return EXIT.auth;
  if (status === 403) return EXIT.forbidden;
  if (status === 404) return EXIT.notFound;
  if (status === 400) return EXIT.usage;
  return EXIT.other;
}

interface SystemError {
  code?: string;
  address?: string;
  port?: number;
  hostname?: string;
  message?: string;
  cause?: unknown;
  errors?: unknown[];
}

/** Why a request never got an answer, as the system said it: `ECONNREFUSED 127.0.0.1:3000`, `ENOTFOUND admin.example`. */
export function connectionCause(error: unknown): string {
  const seen: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    const e = value as SystemError;
    if (e.code && /^E[A-Z]+$/.test(e.code)) {
      const where = e.address ? `${e.address}${e.port ? `:${e.port}` : ''}` : e.hostname;
      const text = where ? `${e.code} ${where}` : e.code;
      if (!seen.includes(text)) seen.push(text);
    }
    if (Array.isArray(e.errors)) e.errors.forEach(visit);
    if (e.cause) visit(e.cause);
  };
  visit(error);
  // A bare code (an AggregateError's own) says less than the same code with an address: keep the latter.
  const telling = seen.filter((text) => text.includes(' ') || !seen.some((other) => other.startsWith(`${text} `)));
  if (telling.length > 0) return telling.join(', ');
  const cause = (error as SystemError | undefined)?.cause as SystemError | undefined;
  return cause?.message ?? (error as Error).message;
}
