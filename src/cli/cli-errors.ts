// The CLI's exit codes, and the error that carries one.
export const EXIT = {
  ok: 0,
  other: 1,
  usage: 2,
  auth: 3,
  forbidden: 4,
  notFound: 5,
  timeout: 6,
  unsupported: 7,
  interrupted: 130,
} as const;

/** Each exit code and when it is given: the table in --help, the README and docs/cli.md. */
export const EXIT_CODE_TABLE: [code: number, meaning: string][] = [
  [EXIT.ok, 'success'],
  [EXIT.other, 'any other failure: server unreachable, a conflict, an operation that ended Failed, a refusal'],
  [EXIT.usage, 'usage: unknown command or flag, bad value, a 400 from the server, --yes missing without a terminal'],
  [EXIT.auth, 'not signed in, or the session expired'],
  [EXIT.forbidden, 'forbidden: the role does not allow it (403)'],
  [EXIT.notFound, 'not found (404)'],
  [EXIT.timeout, '--wait gave up at --timeout (the operation goes on)'],
  [EXIT.unsupported, 'not supported by this server: embedded mode has no such thing (422)'],
  [EXIT.interrupted, 'cancelled with Ctrl-C'],
];

export const EXIT_CODES_HELP = `Exit codes:\n${EXIT_CODE_TABLE.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`).join('\n')}`;

export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A 422 that says the server has no such thing (embedded mode), rather than that the input was wrong. */
const UNSUPPORTED = /embedded mode|embedded FalkorDB|not supported|needs no licen[cs]e/i;

export function exitCodeForStatus(status: number, message = ''): number {
  if (status === 422 && UNSUPPORTED.test(message)) return EXIT.unsupported;
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
