// rbac roles list|get|create|update|delete, rbac mappings list|set|delete (OAuth group e-mail → role), and rbac config
// get|replace|reload (the whole configuration at once).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { confirmDestructive, withYes, type ConfirmOptions } from '../confirm.js';
import { printLine, printResult, printTable, readStdin } from '../output.js';
import { integer, repeatable } from '../parsers.js';

interface Rule {
  resource: string;
  actions: string[];
  namespace?: string;
}
interface Role {
  name: string;
  description?: string;
  rules: Rule[];
  predefined?: boolean;
}
interface Mapping {
  groupEmail: string;
  roleName: string;
  priority: number;
}

const rolePath = (name: string) => `/api/rbac/roles/${encodeURIComponent(name)}`;
const mappingPath = (group: string) => `/api/rbac/group-mappings/${encodeURIComponent(group)}`;
const ruleText = (rule: Rule) =>
  `${rule.resource}:${rule.actions.join(',')}${rule.namespace ? `@${rule.namespace}` : ''}`;

/** `resource:action,action[@namespace]`, e.g. `clusters:list,get@team-a` or `*:*`. */
export function parseRule(text: string): Rule {
  const match = /^([a-z.*]+):([a-z*,]+)(?:@(.+))?$/.exec(text);
  if (!match)
    throw new CliError(EXIT.usage, `--rule takes resource:action[,action…][@namespace], got ${JSON.stringify(text)}`);
  return {
    resource: match[1]!,
    actions: match[2]!.split(',').filter(Boolean),
    ...(match[3] ? { namespace: match[3] } : {}),
  };
}

export function registerRbacCommands(program: Command): void {
  const rbac = program.command('rbac').description('Roles and the OAuth group mappings that grant them');
  const roles = rbac.command('roles').description('Predefined and custom roles');

  roles
    .command('list')
    .description('List roles')
    .action(async () => {
      const { roles: list } = await (await signedInClient()).call<{ roles: Role[] }>('GET', '/api/rbac/roles');
      printResult(list, {
        headers: ['NAME', 'PREDEFINED', 'RULES', 'DESCRIPTION'],
        rows: list.map((r) => [r.name, r.predefined ?? false, r.rules.length, r.description ?? '']),
        wide: { headers: ['PERMISSIONS'], rows: list.map((r) => [r.rules.map(ruleText).join(' ')]) },
      });
    });

  roles
    .command('get')
    .description('Show one role and its rules')
    .argument('<name>')
    .action(async (name: string) => {
      const { role } = await (await signedInClient()).call<{ role: Role }>('GET', rolePath(name));
      printResult(role, () => {
        printLine(
          `${role.name}${role.predefined ? ' (predefined)' : ''}${role.description ? `: ${role.description}` : ''}`,
        );
        printTable(
          ['RESOURCE', 'ACTIONS', 'NAMESPACE'],
          role.rules.map((r) => [r.resource, r.actions.join(','), r.namespace ?? '*']),
        );
      });
    });

  roles
    .command('create')
    .description('Create a custom role from --rule flags, or from a JSON file (-f role.json, - for stdin)')
    .argument('[name]', 'the role name (taken from the file with -f)')
    .option('--rule <rule>', 'resource:action[,action…][@namespace]; repeatable', repeatable)
    .option('--description <text>', 'what the role is for')
    .option('-f, --file <file>', 'the role as JSON: {"name", "description", "rules": [{resource, actions, namespace}]}')
    .addHelpText(
      'after',
      '\nExamples:\n  graphdb-admin rbac roles create team-a-operator --rule clusters:list,get,update@team-a --rule system:list\n  graphdb-admin rbac roles create -f role.json',
    )
    .action(async (name: string | undefined, options: { rule?: string[]; description?: string; file?: string }) => {
      let role: Role;
      if (options.file) {
        const text = options.file === '-' ? await readStdin() : await readFile(options.file, 'utf8');
        try {
          role = JSON.parse(text) as Role;
        } catch (error) {
          throw new CliError(EXIT.usage, `${options.file} is not JSON: ${(error as Error).message}`);
        }
        if (name) role.name = name;
      } else {
        if (!name) throw new CliError(EXIT.usage, 'give the role name, or -f role.json');
        if (!options.rule?.length) throw new CliError(EXIT.usage, 'give at least one --rule, or -f role.json');
        role = {
          name,
          rules: options.rule.map(parseRule),
          ...(options.description !== undefined ? { description: options.description } : {}),
        };
      }
      const answer = await (
        await signedInClient()
      ).call<{ success: boolean; message: string }>('POST', '/api/rbac/roles', role);
      printResult({ ...answer, role: role.name }, () => printLine(`Created role ${role.name}`));
    });

  roles
    .command('update')
    .description("Replace a custom role's rules (and description)")
    .argument('<name>')
    .requiredOption(
      '--rule <rule>',
      'resource:action[,action…][@namespace]; repeatable; replaces every rule',
      repeatable,
    )
    .option('--description <text>', 'the new description ("" clears it)')
    .addHelpText(
      'after',
      '\nExample:\n  graphdb-admin rbac roles update team-a-operator --rule clusters:list,get@team-a --rule system:list',
    )
    .action(async (name: string, options: { rule: string[]; description?: string }) => {
      const answer = await (
        await signedInClient()
      ).call<{ success: boolean; message: string }>('PUT', rolePath(name), {
        rules: options.rule.map(parseRule),
        ...(options.description !== undefined ? { description: options.description } : {}),
      });
      printResult(answer, () => printLine(`Updated role ${name}`));
    });

  withYes(
    roles.command('delete').description('Delete a custom role (not one still mapped or assigned)').argument('<name>'),
  ).action(async (name: string, options: ConfirmOptions) => {
    await confirmDestructive(`Delete role ${name}`, name, options);
    const answer = await (await signedInClient()).call<{ success: boolean; message: string }>('DELETE', rolePath(name));
    printResult(answer, () => printLine(`Deleted role ${name}`));
  });

  const mappings = rbac
    .command('mappings')
    .alias('group-mappings')
    .description('Which role the members of an OAuth group get (highest priority wins)');

  mappings
    .command('list')
    .description('List group mappings')
    .action(async () => {
      const { mappings: list } = await (
        await signedInClient()
      ).call<{ mappings: Mapping[] }>('GET', '/api/rbac/group-mappings');
      printResult(list, {
        headers: ['GROUP', 'ROLE', 'PRIORITY'],
        rows: list.map((m) => [m.groupEmail, m.roleName, m.priority]),
      });
    });

  mappings
    .command('set')
    .description("Map a group's e-mail to a role (creates the mapping or changes it)")
    .argument('<group-email>')
    .requiredOption('--role <name>', 'the role members of the group get')
    .option('--priority <n>', 'when a user is in several groups the highest wins', integer(-1_000_000, 1_000_000), 0)
    .addHelpText(
      'after',
      '\nExample:\n  graphdb-admin rbac mappings set sre@corp.example --role operator --priority 10',
    )
    .action(async (groupEmail: string, options: { role: string; priority: number }) => {
      const client = await signedInClient();
      const exists = (await client.call<{ mappings: Mapping[] }>('GET', '/api/rbac/group-mappings')).mappings.some(
        (m) => m.groupEmail.toLowerCase() === groupEmail.toLowerCase(),
      );
      const answer = exists
        ? await client.call<{ success: boolean; message: string }>('PUT', mappingPath(groupEmail), {
            roleName: options.role,
            priority: options.priority,
          })
        : await client.call<{ success: boolean; message: string }>('POST', '/api/rbac/group-mappings', {
            groupEmail,
            roleName: options.role,
            priority: options.priority,
          });
      printResult({ ...answer, groupEmail, roleName: options.role, priority: options.priority }, () =>
        printLine(`${groupEmail} → ${options.role} (priority ${options.priority})${exists ? ', updated' : ''}`),
      );
    });

  withYes(mappings.command('delete').description('Remove a group mapping').argument('<group-email>')).action(
    async (groupEmail: string, options: ConfirmOptions) => {
      await confirmDestructive(`Remove the role mapping of ${groupEmail}`, groupEmail, options);
      const answer = await (
        await signedInClient()
      ).call<{ success: boolean; message: string }>('DELETE', mappingPath(groupEmail));
      printResult(answer, () => printLine(`Deleted mapping of ${groupEmail}`));
    },
  );

  const config = rbac.command('config').description('The whole RBAC configuration: every role and group mapping');
  config
    .command('get')
    .description('Print the configuration (-o json for a file `rbac config replace` takes)')
    .action(async () => {
      const answer = await (
        await signedInClient()
      ).call<{ config: { roles: Role[]; groupMappings: Mapping[] } }>('GET', '/api/rbac/');
      printResult(answer, () => {
        printTable(
          ['ROLE', 'PREDEFINED', 'PERMISSIONS'],
          answer.config.roles.map((r) => [r.name, r.predefined ?? false, r.rules.map(ruleText).join(' ')]),
        );
        printLine('');
        printTable(
          ['GROUP', 'ROLE', 'PRIORITY'],
          answer.config.groupMappings.map((m) => [m.groupEmail, m.roleName, m.priority]),
        );
      });
    });

  withYes(
    config
      .command('replace')
      .description(
        'Replace every custom role and group mapping with a file\'s ({"config": {"roles", "groupMappings"}})',
      )
      .requiredOption('-f, --file <file>', 'the configuration as JSON (- for standard input)'),
  ).action(async (options: { file: string } & ConfirmOptions) => {
    const text = options.file === '-' ? await readStdin() : await readFile(options.file, 'utf8').catch(() => undefined);
    if (text === undefined) throw new CliError(EXIT.usage, `cannot read ${options.file}`);
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch (error) {
      throw new CliError(EXIT.usage, `${options.file} is not JSON: ${(error as Error).message}`);
    }
    await confirmDestructive('Replace the whole RBAC configuration', 'rbac', options);
    const answer = await (
      await signedInClient()
    ).call<{ success: boolean; message: string }>('PUT', '/api/rbac/', body);
    printResult(answer, () => printLine(answer.message));
  });

  config
    .command('reload')
    .description('Re-read the configuration from where the server keeps it')
    .action(async () => {
      const answer = await (
        await signedInClient()
      ).call<{ success: boolean; message: string }>('POST', '/api/rbac/reload');
      printResult(answer, () => printLine(answer.message));
    });
}
