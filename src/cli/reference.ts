// The CLI reference (docs/cli-reference.md), generated from the command trees of graphdb-admin and graphdb, so it cannot
// drift from what the commands accept: `npm run cli-docs` writes it, test/unit/cli-docs.test.ts fails when stale.
import type { Command, Help } from 'commander';
import { EXIT_CODE_TABLE } from './cli-errors.js';

const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

function optionLines(help: Help, command: Command): string[] {
  return help
    .visibleOptions(command)
    .filter((option) => option.long !== '--help')
    .map((option) => {
      const extra: string[] = [];
      if (option.argChoices) extra.push(`one of ${option.argChoices.join(', ')}`);
      if (option.defaultValue !== undefined && typeof option.defaultValue !== 'object')
        extra.push(`default ${option.defaultValueDescription ?? JSON.stringify(option.defaultValue)}`);
      return `- ${code(help.optionTerm(option))}: ${option.description}${extra.length ? ` (${extra.join('; ')})` : ''}`;
    });
}

function section(command: Command, path: string, depth: number, out: string[]): void {
  const help = command.createHelp();
  const subcommands = help.visibleCommands(command).filter((sub) => sub.name() !== 'help');
  out.push(`${'#'.repeat(Math.min(depth, 6))} ${path}`, '');
  if (command.description()) out.push(command.description(), '');
  const aliases = command.aliases();
  if (aliases.length) out.push(`Also: ${aliases.map((alias) => code(alias)).join(', ')}.`, '');
  if (subcommands.length === 0 || command.registeredArguments.length > 0) {
    out.push('```', `${path} ${command.usage()}`.trim(), '```', '');
    const args = help.visibleArguments(command);
    if (args.length) {
      out.push('Arguments:', '');
      for (const arg of args)
        out.push(`- ${code(help.argumentTerm(arg))}${arg.description ? `: ${arg.description}` : ''}`);
      out.push('');
    }
    const options = optionLines(help, command);
    if (options.length && depth > 1) out.push('Options:', '', ...options, '');
  }
  if (subcommands.length) {
    out.push('Commands:', '');
    for (const sub of subcommands) out.push(`- ${code(`${path} ${sub.name()}`)}: ${sub.description()}`);
    out.push('');
  }
  for (const sub of subcommands) section(sub, `${path} ${sub.name()}`, depth + 1, out);
}

function globalOptions(program: Command): string[] {
  return optionLines(program.createHelp(), program);
}

/** The whole reference: both programs, their global options, every command, and the exit codes. */
export function cliReference(admin: Command, shell: Command): string {
  const out: string[] = [
    '# Command-line reference',
    '',
    'Generated from the command tree by `npm run cli-docs`; a test fails when this file is stale. The guide with examples',
    'is [cli.md](cli.md); every command also answers `--help`.',
    '',
    '## graphdb-admin',
    '',
    admin.description(),
    '',
    'Options of every command:',
    '',
    ...globalOptions(admin),
    '',
    'Exit codes:',
    '',
    '| code | meaning |',
    '|---|---|',
    ...EXIT_CODE_TABLE.map(([exit, meaning]) => `| ${exit} | ${meaning} |`),
    '',
  ];
  const help = admin.createHelp();
  for (const command of help.visibleCommands(admin).filter((c) => c.name() !== 'help'))
    section(command, `graphdb-admin ${command.name()}`, 3, out);
  out.push('## graphdb', '', shell.description(), '', '```', `graphdb ${shell.usage()}`, '```', '', 'Options:', '');
  out.push(...globalOptions(shell), '');
  const shellHelp = shell.createHelp();
  for (const command of shellHelp.visibleCommands(shell).filter((c) => c.name() !== 'help'))
    section(command, `graphdb ${command.name()}`, 3, out);
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
