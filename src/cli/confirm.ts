// Confirmation of destructive commands: on a terminal the operator is asked (and retypes the name of a deployment or
// a backup, as kbcli asks); without one the command refuses unless --yes says the caller meant it (as gh does).
import type { Command } from 'commander';
import { CliError, EXIT } from './cli-errors.js';
import { promptText } from './prompt.js';

export interface ConfirmOptions {
  yes?: boolean;
}

/** Adds `-y, --yes` to a destructive command. */
export function withYes(command: Command): Command {
  return command.option('-y, --yes', 'do not ask for confirmation (required when there is no terminal)');
}

/**
 * Goes on when `--yes` was given or the operator confirms on a terminal; otherwise throws: exit code 2 without a
 * terminal (`--yes` missing), 1 when the operator declined or typed another name.
 * `retype`: the operator types `name` itself instead of answering y.
 */
export async function confirmDestructive(
  action: string,
  name: string,
  options: ConfirmOptions,
  retype = false,
): Promise<void> {
  if (options.yes) return;
  if (!process.stdin.isTTY)
    throw new CliError(EXIT.usage, `${action} needs confirmation: run it on a terminal or pass --yes`);
  if (retype) {
    const typed = await promptText(`${action}: type the name (${name}) to confirm:`);
    if (typed.trim() !== name)
      throw new CliError(EXIT.other, `not done: ${JSON.stringify(typed.trim())} is not ${JSON.stringify(name)}`);
    return;
  }
  const answer = await promptText(`${action}? [y/N]`);
  if (!/^y(es)?$/i.test(answer.trim())) throw new CliError(EXIT.other, 'not done: not confirmed');
}
