// search: deployments, backups, users, roles and backup repositories found by name.
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { printProgress, printResult } from '../output.js';
import { repeatable, wholeNumber } from '../parsers.js';

export function registerSearchCommand(program: Command): void {
  program
    .command('search')
    .description('Find deployments, backups, users, roles and backup repositories by name')
    .argument('[query]', 'text the name or description contains (case-insensitive); all when absent')
    .option('--type <type>', 'cluster, backup, user, role or backup-repository; repeatable', repeatable)
    .option('-n, --namespace <namespace>', 'only this namespace')
    .option('--limit <n>', 'at most this many (1-200)', wholeNumber(1, 200))
    .action(async (text: string | undefined, options: { type?: string[]; namespace?: string; limit?: number }) => {
      const query = new URLSearchParams();
      if (text !== undefined) query.set('q', text);
      if (options.type?.length) query.set('types', options.type.join(','));
      if (options.namespace) query.set('namespace', options.namespace);
      if (options.limit !== undefined) query.set('limit', String(options.limit));
      const answer = await (
        await signedInClient()
      ).call<{
        query: string;
        total: number;
        items: { type: string; name: string; namespace?: string; id: string; description: string }[];
      }>('GET', `/api/search/?${query.toString()}`);
      printResult(answer, {
        headers: ['TYPE', 'NAMESPACE', 'NAME', 'DESCRIPTION'],
        rows: answer.items.map((item) => [item.type, item.namespace ?? '', item.name, item.description]),
      });
      if (answer.total > answer.items.length && process.stderr.isTTY)
        printProgress(`${answer.items.length} of ${answer.total}; --limit for more`);
    });
}
