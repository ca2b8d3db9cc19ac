// settings get / settings set path=value … (typed by the current document; `path -` reads a value from stdin).
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { printResult, readStdin } from '../output.js';

type Document = Record<string, Record<string, unknown>>;

function display(value: unknown): string {
  if (Array.isArray(value)) return value.map(display).join(',');
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Flattens the document into `section.field` rows. */
export function flatten(document: Document): [string, string][] {
  return Object.entries(document).flatMap(([section, fields]) =>
    Object.keys(fields).length === 0
      ? [[section, '{}'] as [string, string]]
      : Object.entries(fields).map(([field, value]) => [`${section}.${field}`, display(value)] as [string, string]),
  );
}

/** Converts the text of an assignment to the type the current value has (boolean, number, list); text otherwise. */
export function typedValue(path: string, text: string, current: unknown): unknown {
  if (typeof current === 'boolean') {
    if (text !== 'true' && text !== 'false') throw new CliError(EXIT.usage, `${path} takes true or false`);
    return text === 'true';
  }
  if (typeof current === 'number') {
    if (!/^-?\d+$/.test(text)) throw new CliError(EXIT.usage, `${path} takes a whole number`);
    return Number(text);
  }
  if (Array.isArray(current)) return text === '' ? [] : text.split(',').map((item) => item.trim());
  return text;
}

export function registerSettingsCommands(program: Command): void {
  const settings = program.command('settings').description('Read and change the settings document');

  settings
    .command('get')
    .description('Show the settings (write-only values are never shown)')
    .action(async () => {
      const document = await (await signedInClient()).call<Document>('GET', '/api/settings/');
      printResult(document, { headers: ['SETTING', 'VALUE'], rows: flatten(document) });
    });

  settings
    .command('set')
    .description('Change settings: section.field=value …; `section.field -` reads the value from stdin')
    .argument('<assignments...>', 'section.field=value pairs')
    .addHelpText(
      'after',
      '\nExamples:\n  graphdb-admin settings set features.oauth2_enabled=true oauth.allowed_domains=corp.example,corp.example.org\n  graphdb-admin settings set alpha_oauth.client_secret_secret_ref=alpha-oauth\n  printf %s "$SECRET" | graphdb-admin settings set alpha_oauth.client_secret -',
    )
    .action(async (assignments: string[]) => {
      const client = await signedInClient();
      const current = await client.call<Document>('GET', '/api/settings/');
      const patch: Document = {};
      for (let i = 0; i < assignments.length; i++) {
        const item = assignments[i]!;
        let path: string;
        let text: string;
        if (!item.includes('=') && assignments[i + 1] === '-') {
          path = item;
          text = await readStdin();
          i++;
        } else {
          const at = item.indexOf('=');
          if (at <= 0) throw new CliError(EXIT.usage, `expected section.field=value, got ${JSON.stringify(item)}`);
          path = item.slice(0, at);
          text = item.slice(at + 1);
        }
        const [section, field, ...rest] = path.split('.');
        if (!section || !field || rest.length > 0)
          throw new CliError(EXIT.usage, `expected section.field, got ${JSON.stringify(path)}`);
        patch[section] = { ...patch[section], [field]: typedValue(path, text, current[section]?.[field]) };
      }
      const updated = await client.call<Document>('PATCH', '/api/settings/', patch);
      printResult(updated, {
        headers: ['SETTING', 'VALUE'],
        rows: flatten(updated).filter(([path]) =>
          Object.entries(patch).some(([section, fields]) =>
            Object.keys(fields).some((field) => path === `${section}.${field}`),
          ),
        ),
      });
    });
}
