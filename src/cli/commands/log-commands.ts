// `logs`: a deployment's pod logs in the admin CLI, read once or followed over the server-sent event stream.
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { readEvents } from '../event-stream.js';
import { printLine, printResult } from '../output.js';
import { wholeNumber } from '../parsers.js';
import { namespaceOption } from './cluster-commands.js';

export function registerLogCommands(program: Command): void {
  const logs = program.command('logs').description("A deployment's pod logs");
  namespaceOption(
    logs.command('get').description("A pod's log (the last lines; --follow streams new ones)").argument('<name>'),
  )
    .argument('<pod>')
    .option('--container <name>', 'the container (default: the pod default)')
    .option('--tailLines <n>', 'the last lines only', wholeNumber(1, 10_000))
    .option('-f, --follow', 'keep printing new lines until interrupted (or the server ends the stream)')
    .action(
      async (
        name: string,
        pod: string,
        options: { namespace?: string; container?: string; tailLines?: number; follow?: boolean },
      ) => {
        const params = new URLSearchParams();
        if (options.namespace) params.set('namespace', options.namespace);
        if (options.container) params.set('container', options.container);
        if (options.tailLines !== undefined) params.set('tailLines', String(options.tailLines));
        const path = `/api/clusters/${encodeURIComponent(name)}/pods/${encodeURIComponent(pod)}/logs`;
        const client = await signedInClient();
        if (!options.follow) {
          const read = await client.call<{ podName: string; logs: string[] }>('GET', `${path}?${params.toString()}`);
          printResult(read, () => {
            for (const line of read.logs) printLine(line);
          });
          return;
        }
        const res = await client.raw('GET', `${path}/stream?${params.toString()}`, undefined, {
          headers: { accept: 'text/event-stream' },
        });
        await readEvents(res, printLine);
      },
    );
}
