// A terminal prompt through Inquirer's maintained prompts (@inquirer/input, @inquirer/password): the password is
// never echoed, editing keys behave as in any line editor, Ctrl-C cancels (exit code 130, as a shell reports
// SIGINT). Prompts go to stderr, so stdout stays the command's result.
import input from '@inquirer/input';
import password from '@inquirer/password';
import { CliError, EXIT } from './cli-errors.js';

const isCancelled = (error: unknown) =>
  error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');

/**
 * Asks on the terminal. Without one, fails with a usage error saying how to give the value instead (`alternative`,
 * e.g. "pass --email or set GRAPHDB_ADMIN_EMAIL").
 */
export async function promptHidden(question: string, hidden: boolean, alternative?: string): Promise<string> {
  if (!process.stdin.isTTY)
    throw new CliError(
      EXIT.usage,
      `${question.replace(/: $/, '')} is required (no terminal to ask on${alternative ? `; ${alternative}` : ''})`,
    );
  return ask(question.trimEnd(), hidden);
}

/** Asks on the terminal (the caller checked that there is one). */
export async function promptText(question: string): Promise<string> {
  return ask(question, false);
}

async function ask(message: string, hidden: boolean): Promise<string> {
  const context = { input: process.stdin, output: process.stderr };
  try {
    return hidden ? await password({ message }, context) : await input({ message }, context);
  } catch (error) {
    if (isCancelled(error)) throw new CliError(EXIT.interrupted, 'cancelled');
    throw error;
  }
}
