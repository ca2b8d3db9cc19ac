// --wait for asynchronous operations that are not OpsRequests (a backup, a restore, a cloned deployment): poll a
// read until the object reaches an end state, print each change of state on stderr, exit 6 at the deadline.
import { Option, type Command } from 'commander';
import { CliError, EXIT } from './cli-errors.js';
import { printProgress } from './output.js';
import { parseDuration, wholeNumber } from './parsers.js';

export interface WaitOptions {
  wait?: boolean;
  timeout: number;
  pollInterval: number;
}

export const DEFAULT_TIMEOUT = '10m';

/** Adds --wait, --timeout and --poll-interval to a command. */
export function withWait(command: Command, what: string): Command {
  return command
    .option('--wait', `wait until ${what} (non-zero exit unless it succeeds)`)
    .addOption(
      new Option('--timeout <duration>', 'give up waiting after this long (30s, 10m, 1h; exit code 6)')
        .argParser(parseDuration)
        .default(parseDuration(DEFAULT_TIMEOUT), DEFAULT_TIMEOUT),
    )
    .option('--poll-interval <ms>', 'how often --wait polls, in milliseconds', wholeNumber(10, 3_600_000), 1000);
}

export type State = 'done' | 'failed' | 'going';

/**
 * Reads `read()` until `state` says it ended; answers the last read. A failed end is exit 1 with `reason`; no end
 * before the deadline is exit 6 (the operation itself goes on).
 */
export async function waitFor<T>(
  label: string,
  read: () => Promise<T>,
  state: (current: T) => { state: State; phase: string; reason?: string },
  options: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + options.timeout;
  let last = '';
  for (;;) {
    const current = await read();
    const seen = state(current);
    if (seen.phase !== last) {
      printProgress(`${label}: ${seen.phase}`);
      last = seen.phase;
    }
    if (seen.state === 'done') return current;
    if (seen.state === 'failed')
      throw new CliError(EXIT.other, `${label} ended ${seen.phase}${seen.reason ? `: ${seen.reason}` : ''}`);
    const left = deadline - Date.now();
    if (left <= 0)
      throw new CliError(
        EXIT.timeout,
        `timed out after ${options.timeout / 1000}s waiting for ${label} (${seen.phase}); it goes on without us`,
      );
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.pollInterval, left)));
  }
}
