// raw <METHOD> <path> [--data json]: any admin API call with the stored session; prints the answer's body.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { errorFor, readErrorMessage, signedInClient } from '../api-client.js';
import { CliError, EXIT, exitCodeForStatus } from '../cli-errors.js';
import { outputFormat, printJson, printResult, readStdin } from '../output.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export function registerRawCommand(program: Command): void {
  program
    .command('raw')
    .description('Call any admin API path with the stored session and print the body (the escape hatch)')
    .argument('<method>', METHODS.join(', '))
    .argument('<path>', 'the path and query, e.g. /api/system/namespaces')
    .option('-d, --data <json>', 'the JSON body; @file reads it from a file, - from stdin')
    .addHelpText(
      'after',
      '\nThe body is printed as it came (JSON pretty-printed; -o yaml converts it). An error answer is printed too,\nand the exit code follows its status (3 for 401, 4 for 403, 5 for 404, 2 for 400, 1 otherwise).\n\nExamples:\n  graphdb-admin raw GET /api/system/namespaces\n  graphdb-admin raw PATCH /api/settings/ --data \'{"features":{"metrics_collection":false}}\'\n  graphdb-admin raw POST /api/rbac/roles --data @role.json',
    )
    .action(async (methodText: string, path: string, options: { data?: string }) => {
      const method = methodText.toUpperCase();
      if (!METHODS.includes(method))
        throw new CliError(
          EXIT.usage,
          `method must be one of ${METHODS.join(', ')}; got ${JSON.stringify(methodText)}`,
        );
      if (!path.startsWith('/')) throw new CliError(EXIT.usage, `the path starts with /, got ${JSON.stringify(path)}`);
      let body: unknown;
      if (options.data !== undefined) {
        const text =
          options.data === '-'
            ? await readStdin()
            : options.data.startsWith('@')
              ? await readFile(options.data.slice(1), 'utf8')
              : options.data;
        try {
          body = JSON.parse(text);
        } catch (error) {
          throw new CliError(EXIT.usage, `--data is not JSON: ${(error as Error).message}`);
        }
      }
      const res = await (await signedInClient()).raw(method, path, body, { acceptErrors: true });
      if (res.status === 401) throw await errorFor(res);
      const type = res.headers.get('content-type') ?? '';
      if (res.ok && type !== '' && !/json|text|xml|yaml/.test(type)) {
        // A file (a zip, say): its bytes, unchanged.
        process.stdout.write(new Uint8Array(await res.arrayBuffer()));
        return;
      }
      const text = await res.text();
      let json: unknown;
      let isJson = false;
      try {
        json = JSON.parse(text);
        isJson = text.length > 0;
      } catch {
        // not JSON: printed as it came
      }
      if (isJson) {
        if (outputFormat() === 'yaml') printResult(json);
        else printJson(json);
      } else if (text.length > 0) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      if (!res.ok) {
        const message = await readErrorMessage(new Response(text, { status: res.status, statusText: res.statusText }));
        throw new CliError(exitCodeForStatus(res.status), `${method} ${path}: ${res.status}: ${message}`);
      }
    });
}
