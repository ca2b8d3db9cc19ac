// A terminal prompt; with `hidden`, typed characters are not echoed (for passwords).
import { createInterface } from 'node:readline';
import { CliError, EXIT } from './cli-errors.js';

export function promptHidden(question: string, hidden: boolean): Promise<string> {
  if (!process.stdin.isTTY)
    return Promise.reject(
      new CliError(
        EXIT.usage,
        `${question.replace(/: $/, '')} is required (no terminal to ask on; pass it as an option or use --password-stdin)`,
      ),
    );
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    if (hidden) {
      // Print the question, then swallow the echo of what is typed.
      const write = (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput.bind(rl);
      (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = (text: string) => {
        if (text === question) write(text);
      };
    }
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stderr.write('\n');
      resolve(answer);
    });
  });
}
