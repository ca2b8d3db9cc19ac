// version: this client's version, the server's (GET /health, public) and the version of the API document it serves
// (GET /api-docs/json, when the docs are on), and whether the two can work together.
import type { Command } from 'commander';
import { send } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { printLine, printResult } from '../output.js';
import { activeContextName, loadConfig } from '../session-file.js';

export interface VersionReport {
  client: { version: string; node: string };
  server?: { url: string; version: string; apiVersion?: string };
  /** Same major version: every command of this client is served. */
  compatible?: boolean;
  note?: string;
}

const major = (version: string) => Number.parseInt(version.split('.')[0] ?? '', 10);
const minor = (version: string) => Number.parseInt(version.split('.')[1] ?? '', 10);

/** Whether a client and a server of these versions work together, and what to say when they differ. */
export function compatibility(client: string, server: string): { compatible: boolean; note?: string } {
  if (Number.isNaN(major(client)) || Number.isNaN(major(server)))
    return { compatible: false, note: `cannot compare versions ${client} and ${server}` };
  if (major(client) !== major(server))
    return {
      compatible: false,
      note: `client ${client} and server ${server} differ in major version: install graphdb-admin ${major(server)}.x`,
    };
  if (minor(server) > minor(client))
    return { compatible: true, note: `the server is newer (${server}): some of its features have no command here` };
  if (minor(server) < minor(client))
    return { compatible: true, note: `the server is older (${server}): some commands may answer 404` };
  return { compatible: true };
}

async function serverUrl(): Promise<string | undefined> {
  const config = await loadConfig();
  const name = activeContextName(config);
  return (name === undefined ? undefined : config.contexts[name]?.server) ?? process.env.GRAPHDB_ADMIN_URL;
}

export function registerVersionCommand(program: Command, clientVersion: string): void {
  program
    .command('version')
    .description("Show this client's version, the server's and whether they work together")
    .option('--client', "this client's version only (no request)")
    .option('--server <url>', 'ask this server (default: the current context’s)')
    .action(async (options: { client?: boolean; server?: string }) => {
      const report: VersionReport = { client: { version: clientVersion, node: process.versions.node } };
      const url = options.client ? undefined : (options.server ?? (await serverUrl()));
      let failure: CliError | undefined;
      if (url) {
        try {
          const res = await send(url, '/health', { headers: { accept: 'application/json' } });
          if (!res.ok) throw new CliError(EXIT.other, `${url} answered ${res.status} to GET /health`);
          const { version } = (await res.json()) as { version: string };
          const docs = await send(url, '/api-docs/json', { headers: { accept: 'application/json' } });
          const apiVersion = docs.ok
            ? ((await docs.json()) as { info?: { version?: string } }).info?.version
            : undefined;
          if (!docs.ok) await docs.body?.cancel();
          report.server = { url, version, ...(apiVersion ? { apiVersion } : {}) };
          Object.assign(report, compatibility(clientVersion, version));
        } catch (error) {
          failure = error instanceof CliError ? error : new CliError(EXIT.other, (error as Error).message);
        }
      } else if (!options.client) report.note = 'no server: run graphdb-admin login --server <url>, or pass --server';
      printResult(report, () => {
        printLine(`Client: ${report.client.version} (Node.js ${report.client.node})`);
        if (report.server)
          printLine(
            `Server: ${report.server.version} at ${report.server.url}${
              report.server.apiVersion ? ` (admin API ${report.server.apiVersion})` : ''
            }`,
          );
        if (report.compatible !== undefined) printLine(`Compatible: ${report.compatible ? 'yes' : 'no'}`);
        if (report.note) printLine(`Note: ${report.note}`);
      });
      if (failure) throw failure;
      if (report.compatible === false) throw new CliError(EXIT.other, report.note ?? 'incompatible versions');
    });
}
