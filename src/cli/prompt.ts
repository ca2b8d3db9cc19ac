// A terminal prompt. With `hidden` (passwords) the terminal is put in raw mode and the keys are read one by one, so
// nothing typed is echoed; no readline internals are touched. Enter ends, Backspace erases, Ctrl-U clears, Ctrl-C
// cancels (exit code 130).
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
  if (!hidden)
    return new Promise((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      rl.question(question, (answer) => {
        rl.close();
        resolve(answer);
      });
    });
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    let answer = '';
    const finish = (error?: CliError) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(answer);
    };
    const onData = (chunk: Buffer) => {
      for (const key of chunk.toString('utf8')) {
        if (key === '\r' || key === '\n' || key === '\u0004') return finish();
        if (key === '\u0003') return finish(new CliError(EXIT.interrupted, 'cancelled'));
        if (key === '\u007f' || key === '\b') answer = [...answer].slice(0, -1).join('');
        else if (key === '\u0015') answer = '';
        else if (key >= ' ') answer += key;
      }
    };
    process.stderr.write(question);
    stdin.setRawMode(true);
    stdin.on('data', onData);
    stdin.resume();
  });
}
