// Server-sent event streams as the admin CLI reads them (a pod's log, a deployment's metrics).
import { CliError, EXIT } from './cli-errors.js';

/**
 * Hands each unnamed event's `data:` lines of a server-sent event stream to `onData` as they arrive (a log stream:
 * one log line each; a metrics stream: one JSON snapshot). An `end` event ends the command; an `error` event fails
 * it with the server's message.
 */
export async function readEvents(res: Response, onData: (data: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true });
    for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
      const frame = pending.slice(0, end).split('\n');
      pending = pending.slice(end + 2);
      const event = frame.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data = frame.filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length));
      if (event === 'end') return;
      if (event === 'error') {
        let message = data.join('\n');
        try {
          const body = JSON.parse(message) as { message?: string; error?: string };
          message = body.message ?? body.error ?? message;
        } catch {
          // plain text
        }
        throw new CliError(EXIT.other, message);
      }
      for (const line of data) onData(line);
    }
  }
}
