// completion bash|zsh|fish: a completion script generated from the program's own command tree, so it never drifts.
// Where a command takes a resource by name (a deployment, a backup, a user, a role, a context) the script asks the
// program itself, `graphdb-admin __complete <kind>` (hidden), which reads the names from the server with the current
// session (contexts from the config file) and prints nothing when it cannot: as kubectl and gh complete.
import type { Command, Option } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { loadConfig } from '../session-file.js';
import { clusterPath } from './cluster-commands.js';

export const RESOURCE_KINDS = ['deployments', 'backups', 'users', 'roles', 'contexts'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** The resource a command's argument names, by the argument's name and the command's path. */
export function argumentResource(path: string, argument: string): ResourceKind | undefined {
  if (argument === 'cluster' || argument === 'deployment') return 'deployments';
  if (argument === 'backup') return 'backups';
  if (argument === 'role') return 'roles';
  if (argument === 'email') return path === 'users add' ? undefined : 'users';
  if (argument !== 'name') return undefined;
  if (/^(deployments|operations|logs) /.test(path)) return 'deployments';
  if (path === 'rbac roles get' || path === 'rbac roles delete') return 'roles';
  if (/^config (use|set|delete)-context$/.test(path)) return 'contexts';
  return undefined;
}

/** The resource an option's value names. */
export function optionResource(long: string | undefined): ResourceKind | undefined {
  return long === '--role'
    ? 'roles'
    : long === '--context'
      ? 'contexts'
      : long === '--cluster'
        ? 'deployments'
        : undefined;
}

/** How long completion waits for the server before it offers nothing. */
const COMPLETE_TIMEOUT_MS = 3000;

/** The names of one kind of resource, from the server (contexts: from the config file). */
export async function resourceNames(kind: ResourceKind, deployment?: string, namespace?: string): Promise<string[]> {
  if (kind === 'contexts') return Object.keys((await loadConfig()).contexts);
  const client = await signedInClient();
  switch (kind) {
    case 'deployments': {
      const query = namespace ? `?namespace=${encodeURIComponent(namespace)}` : '';
      return (await client.call<{ clusters: { name: string }[] }>('GET', `/api/clusters/${query}`)).clusters.map(
        (c) => c.name,
      );
    }
    case 'backups':
      if (!deployment) return [];
      return (
        await client.call<{ backups: { name: string }[] }>('GET', clusterPath(deployment, '/backups/', namespace))
      ).backups.map((b) => b.name);
    case 'users': {
      const emails: string[] = [];
      for (let page = 1; page <= 10; page++) {
        const answer = await client.call<{ users: { email: string }[]; pagination: { totalPages: number } }>(
          'GET',
          `/api/users/?page=${page}&limit=100`,
        );
        emails.push(...answer.users.map((u) => u.email));
        if (page >= answer.pagination.totalPages) break;
      }
      return emails;
    }
    case 'roles':
      return (await client.call<{ roles: { name: string }[] }>('GET', '/api/rbac/roles')).roles.map((r) => r.name);
  }
}

export interface CompletionOption {
  flags: string[];
  description: string;
  /** undefined: a switch; 'file': a path; a list: those choices; 'value': anything. */
  value?: 'file' | 'value' | string[];
  /** The value names a resource, completed from the server. */
  resource?: ResourceKind;
}
export interface CompletionNode {
  /** The command path as typed (aliases give paths of their own), '' for the program. */
  path: string;
  commands: { name: string; description: string }[];
  options: CompletionOption[];
  /** A leaf's positional arguments: the resource each names ('' for none). */
  args: (ResourceKind | '')[];
}

function optionValue(option: Option): CompletionOption['value'] {
  if (!option.required && !option.optional) return undefined;
  if (option.argChoices) return [...option.argChoices];
  return /^--(file|config|output-file|license-file)$/.test(option.long ?? '') ? 'file' : 'value';
}

function describeOption(option: Option): CompletionOption {
  const resource = optionResource(option.long);
  return {
    flags: [option.short, option.long].filter((flag): flag is string => Boolean(flag)),
    description: option.description,
    value: optionValue(option),
    ...(resource ? { resource } : {}),
  };
}

/** Every command path of the tree with its subcommands and its own options (global options are listed once, at ''). */
export function completionTree(program: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string) => {
    const help = command.createHelp();
    const commands = help
      .visibleCommands(command)
      .flatMap((sub) => [sub.name(), ...sub.aliases()].map((name) => ({ name, description: sub.description() })));
    nodes.push({
      path,
      commands,
      options: help.visibleOptions(command).map(describeOption),
      args: command.registeredArguments.map((argument) => argumentResource(path, argument.name()) ?? ''),
    });
    for (const sub of help.visibleCommands(command))
      for (const name of [sub.name(), ...sub.aliases()]) visit(sub, path ? `${path} ${name}` : name);
  };
  visit(program, '');
  return nodes;
}

const sq = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const fishQuote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function valueFlags(nodes: CompletionNode[]): Map<string, CompletionOption['value']> {
  const flags = new Map<string, CompletionOption['value']>();
  for (const node of nodes)
    for (const option of node.options) if (option.value) for (const flag of option.flags) flags.set(flag, option.value);
  return flags;
}

// Every command has -h/--help of its own and the program's too: each word once.
const wordsAt = (node: CompletionNode, globals: CompletionOption[]) =>
  [
    ...new Set([
      ...node.commands.map((c) => c.name),
      ...node.options.flatMap((o) => o.flags),
      ...(node.path === '' ? [] : globals.flatMap((o) => o.flags)),
    ]),
  ].join(' ');

function resourceFlags(nodes: CompletionNode[]): Map<string, ResourceKind> {
  const flags = new Map<string, ResourceKind>();
  for (const node of nodes)
    for (const option of node.options)
      if (option.resource) for (const flag of option.flags) flags.set(flag, option.resource);
  return flags;
}

/** A bash case pattern of every flag that takes a value. */
const valueFlagPattern = (nodes: CompletionNode[]) => [...valueFlags(nodes).keys()].join('|');

export function bashScript(program: Command): string {
  const nodes = completionTree(program);
  const globals = nodes[0]!.options;
  const paths = nodes.filter((n) => n.path !== '' && n.commands.length > 0).map((n) => sq(n.path));
  const resources = resourceFlags(nodes);
  const values = [...valueFlags(nodes)].map(([flag, value]) =>
    resources.has(flag)
      ? `    ${flag}) COMPREPLY=($(compgen -W "$(_graphdb_admin_names ${resources.get(flag)!})" -- "$cur")); return ;;`
      : value === 'file'
        ? `    ${flag}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`
        : Array.isArray(value)
          ? `    ${flag}) COMPREPLY=($(compgen -W ${sq(value.join(' '))} -- "$cur")); return ;;`
          : `    ${flag}) return ;;`,
  );
  const withArgs = nodes.filter((n) => n.args.some(Boolean));
  return `# bash completion for graphdb-admin (generated by \`graphdb-admin completion bash\`)
# Load it with: source <(graphdb-admin completion bash)
# Resource names come from the server: graphdb-admin __complete <kind> [deployment], with the line's --context,
# --config and --namespace.
_graphdb_admin_names() {
  "\${COMP_WORDS[0]}" "\${globals[@]}" __complete "$@" "\${namespace[@]}" 2>/dev/null
}
_graphdb_admin() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" path="" word i
  ((COMP_CWORD > 0)) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "\${path:+$path }$word" in
      ${paths.length > 0 ? paths.join('|') : "''"}) path="\${path:+$path }$word" ;;
    esac
    # a leaf command ends the walk: what follows are its arguments
    case "\${path:+$path }$word" in
      ${nodes
        .filter((n) => n.path !== '' && n.commands.length === 0)
        .map((n) => sq(n.path))
        .join('|')}) path="\${path:+$path }$word"; break ;;
    esac
  done
  local -a globals=() namespace=() args=()
  local j
  for ((j = 1; j < COMP_CWORD; j++)); do
    case "\${COMP_WORDS[j]}" in
      --context|--config) globals+=("\${COMP_WORDS[j]}" "\${COMP_WORDS[j+1]}") ;;
      -n|--namespace) namespace=(--namespace "\${COMP_WORDS[j+1]}") ;;
    esac
  done
  # the leaf's positional arguments typed so far (flags and their values aside)
  for ((j = i + 1; j < COMP_CWORD; j++)); do
    word="\${COMP_WORDS[j]}"
    case "$word" in
      ${valueFlagPattern(nodes)}) ((j++)) ;;
      -*) ;;
      *) args+=("$word") ;;
    esac
  done
  case "$prev" in
${values.join('\n')}
  esac
  if [[ "$cur" != -* ]]; then
    local -a kinds=()
    case "$path" in
${withArgs.map((n) => `      ${sq(n.path)}) kinds=(${n.args.map((a) => a || '-').join(' ')}) ;;`).join('\n')}
    esac
    local kind="\${kinds[\${#args[@]}]}"
    if [[ -n "$kind" && "$kind" != - ]]; then
      COMPREPLY=($(compgen -W "$(_graphdb_admin_names "$kind" "\${args[0]}")" -- "$cur"))
      return
    fi
  fi
  local words=""
  case "$path" in
${nodes.map((n) => `    ${sq(n.path)}) words=${sq(wordsAt(n, globals))} ;;`).join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _graphdb_admin graphdb-admin
`;
}

export function zshScript(program: Command): string {
  const nodes = completionTree(program);
  const globals = nodes[0]!.options;
  const withArgs = nodes.filter((n) => n.args.some(Boolean));
  const resources = resourceFlags(nodes);
  const values = [...valueFlags(nodes)].map(([flag, value]) =>
    resources.has(flag)
      ? `    ${flag}) compadd -- $(_graphdb_admin_names ${resources.get(flag)!}); return ;;`
      : value === 'file'
        ? `    ${flag}) _files; return ;;`
        : Array.isArray(value)
          ? `    ${flag}) compadd -- ${value.map(sq).join(' ')}; return ;;`
          : `    ${flag}) return ;;`,
  );
  return `#compdef graphdb-admin
# zsh completion for graphdb-admin (generated by \`graphdb-admin completion zsh\`)
# Load it with: source <(graphdb-admin completion zsh), or save it as _graphdb-admin in a directory of $fpath.
_graphdb_admin_names() {
  "\${words[1]}" "\${globals[@]}" __complete "$@" "\${namespace[@]}" 2>/dev/null
}
_graphdb_admin() {
  local path_="" word i leaf=0
  local -a globals=() namespace=() args=()
  local -a known=(${nodes
    .filter((n) => n.path !== '')
    .map((n) => sq(n.path))
    .join(' ')})
  for ((i = 2; i < CURRENT; i++)); do
    word="\${words[i]}"
    if (( ! leaf && \${known[(Ie)\${path_:+$path_ }$word]} )); then path_="\${path_:+$path_ }$word"; continue; fi
    case "$word" in
      --context|--config) globals+=("$word" "\${words[i+1]}") ;;
      -n|--namespace) namespace=(--namespace "\${words[i+1]}") ;;
    esac
    case "\${words[i-1]}" in
      ${valueFlagPattern(nodes)}) continue ;;
    esac
    [[ "$word" == -* ]] || args+=("$word")
  done
  case "\${words[CURRENT-1]}" in
${values.join('\n')}
  esac
  if [[ "\${words[CURRENT]}" != -* ]]; then
    local -a kinds=()
    case "$path_" in
${withArgs.map((n) => `      ${sq(n.path)}) kinds=(${n.args.map((a) => a || '-').join(' ')}) ;;`).join('\n')}
    esac
    local kind="\${kinds[$(( \${#args[@]} + 1 ))]}"
    if [[ -n "$kind" && "$kind" != - ]]; then
      compadd -- $(_graphdb_admin_names "$kind" "\${args[1]}")
      return
    fi
  fi
  local -a candidates
  case "$path_" in
${nodes.map((n) => `    ${sq(n.path)}) candidates=(${wordsAt(n, globals).split(' ').filter(Boolean).map(sq).join(' ')}) ;;`).join('\n')}
  esac
  compadd -- "\${candidates[@]}"
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _graphdb_admin "$@"
else
  compdef _graphdb_admin graphdb-admin
fi
`;
}

export function fishScript(program: Command): string {
  const nodes = completionTree(program);
  const known = nodes.filter((n) => n.path !== '').map((n) => fishQuote(n.path));
  const lines = [
    '# fish completion for graphdb-admin (generated by `graphdb-admin completion fish`)',
    '# Load it with: graphdb-admin completion fish | source',
    'function __graphdb_admin_path',
    '    set -l path',
    '    for word in (commandline -opc)[2..-1]',
    `        if contains -- (string join ' ' $path $word) ${known.join(' ')}`,
    '            set path $path $word',
    '        end',
    '    end',
    "    string join ' ' $path",
    'end',
    'function __graphdb_admin_at',
    '    set -l current (__graphdb_admin_path)',
    '    test "$current" = "$argv[1]"',
    'end',
    'function __graphdb_admin_names',
    '    set -l line (commandline -opc)',
    '    set -l extra',
    '    for i in (seq 2 (count $line))',
    '        switch $line[$i]',
    '            case --context --config',
    '                set extra $extra $line[$i] $line[(math $i + 1)]',
    '        end',
    '    end',
    '    $line[1] $extra __complete $argv 2>/dev/null',
    'end',
    'complete -c graphdb-admin -f',
  ];
  const optionLine = (option: CompletionOption, condition?: string) => {
    const parts = ['complete -c graphdb-admin'];
    if (condition !== undefined) parts.push(`-n ${fishQuote(`__graphdb_admin_at ${fishQuote(condition)}`)}`);
    for (const flag of option.flags) parts.push(flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`);
    if (option.resource) parts.push(`-x -a ${fishQuote(`(__graphdb_admin_names ${option.resource})`)}`);
    else if (option.value === 'file') parts.push('-r -F');
    else if (Array.isArray(option.value)) parts.push(`-x -a ${fishQuote(option.value.join(' '))}`);
    else if (option.value === 'value') parts.push('-x');
    parts.push(`-d ${fishQuote(option.description)}`);
    return parts.join(' ');
  };
  for (const node of nodes) {
    // A leaf's first argument that names a resource (the later ones depend on it: bash and zsh complete those).
    if (node.commands.length === 0 && node.args[0])
      lines.push(
        `complete -c graphdb-admin -n ${fishQuote(`__graphdb_admin_at ${fishQuote(node.path)}`)} -a ${fishQuote(`(__graphdb_admin_names ${node.args[0]})`)}`,
      );
    for (const command of node.commands)
      lines.push(
        `complete -c graphdb-admin -n ${fishQuote(`__graphdb_admin_at ${fishQuote(node.path)}`)} -a ${fishQuote(command.name)} -d ${fishQuote(command.description)}`,
      );
    // The program's own options are accepted after any command: no condition.
    for (const option of node.options)
      if (node.path === '' || !option.flags.includes('--help'))
        lines.push(optionLine(option, node.path === '' ? undefined : node.path));
  }
  return `${lines.join('\n')}\n`;
}

export function registerCompletionCommand(program: Command): void {
  program
    .command('__complete', { hidden: true })
    .description('Print the names of a kind of resource, one a line, for the completion scripts')
    .argument('<kind>', RESOURCE_KINDS.join(', '))
    .argument('[deployment]', 'the deployment whose backups to name')
    .option('-n, --namespace <namespace>', "the deployment's namespace")
    .action(async (kind: string, deployment: string | undefined, options: { namespace?: string }) => {
      if (!(RESOURCE_KINDS as readonly string[]).includes(kind)) return;
      // Completion never fails and never waits long: no session, no server, no answer in time is no names.
      const timer = setTimeout(() => process.exit(EXIT.ok), COMPLETE_TIMEOUT_MS);
      const names = await resourceNames(kind as ResourceKind, deployment, options.namespace).catch(() => []);
      clearTimeout(timer);
      process.stdout.write(names.map((name) => `${name}\n`).join(''));
    });

  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      '\nLoad it:\n  bash: source <(graphdb-admin completion bash)        # e.g. in ~/.bashrc\n  zsh:  source <(graphdb-admin completion zsh)         # e.g. in ~/.zshrc, after compinit\n  fish: graphdb-admin completion fish > ~/.config/fish/completions/graphdb-admin.fish',
    )
    .action((shell: string) => {
      const scripts: Record<string, (p: Command) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };
      const script = scripts[shell];
      if (!script) throw new CliError(EXIT.usage, `completion takes bash, zsh or fish; got ${JSON.stringify(shell)}`);
      process.stdout.write(script(program));
    });
}
