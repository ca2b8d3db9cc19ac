// The CLI's exit codes, and the error that carries one.
export const EXIT = { ok: 0, other: 1, usage: 2, auth: 3, forbidden: 4, notFound: 5 } as const;

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
