// license activate|status.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { printLine, printResult, printTable, readStdin } from '../output.js';

interface License {
  state: string;
  message: string;
  edition: string;
  limits: Record<string, number | string>;
  usage: Record<string, number | string>;
  violations: string[];
}

export function registerLicenseCommands(program: Command): void {
  const license = program.command('license').description('The license');
  license
    .command('activate')
    .description('Activate a license key')
    .option('--license <key>', 'the license key (visible to other users of this machine: prefer --license-file)')
    .option('--license-file <file>', 'a file holding the key (- for standard input)')
    .action(async (options: { license?: string; licenseFile?: string }) => {
      if ((options.license === undefined) === (options.licenseFile === undefined))
        throw new CliError(EXIT.usage, 'give either --license or --license-file');
      let key = options.license;
      if (options.licenseFile !== undefined) {
        key =
          options.licenseFile === '-'
            ? await readStdin()
            : await readFile(options.licenseFile, 'utf8').catch(() => undefined);
        if (key === undefined) throw new CliError(EXIT.usage, `cannot read ${options.licenseFile}`);
        key = key.trim();
      }
      const state = await (
        await signedInClient()
      ).call<License>('POST', '/api/admin/licensing/activate', {
        license: key,
      });
      printResult(state, () => printLine(`${state.edition}: ${state.state}: ${state.message}`));
    });
  license
    .command('status')
    .description('Show the license state, limits and usage')
    .action(async () => {
      const license = await (await signedInClient()).call<License>('GET', '/api/admin/licensing/status');
      printResult(license, () => {
        printLine(`${license.edition}: ${license.state}: ${license.message}`);
        printTable(
          ['LIMIT', 'USED', 'ALLOWED'],
          Object.entries(license.limits).map(([name, limit]) => [name, license.usage[name] ?? '', limit]),
        );
        for (const violation of license.violations) printLine(`violation: ${violation}`);
      });
    });
}
