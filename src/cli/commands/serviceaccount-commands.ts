// serviceaccounts create / list / get / delete / disable, and serviceaccounts tokens create / list / revoke /
// generate (a token's text for the chart's bootstrap, made here without a server). An
// account is named by its name or id, as the API takes either. A new token is printed once, to standard output only.
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { confirmDestructive, withYes, type ConfirmOptions } from '../confirm.js';
import { printLine, printResult } from '../output.js';
import { repeatable, wholeNumber } from '../parsers.js';
import { newTokenText } from '../../lib/service-account-tokens.js';

interface ServiceAccount {
  id: string;
  name: string;
  description?: string;
  role: string;
  disabled: boolean;
  createdAt: string;
  createdBy: string;
  tokens: number;
}

interface Token {
  id: string;
  name: string;
  createdAt: string;
  createdBy: string;
  expiresAt: string;
  expired: boolean;
  allowedCidrs: string[];
  lastUsedAt?: string;
  lastUsedIp?: string;
}

const accountPath = (account: string) => `/api/serviceaccounts/${encodeURIComponent(account)}`;

export function registerServiceAccountCommands(program: Command): void {
  const accounts = program
    .command('serviceaccounts')
    .alias('sa')
    .description('Manage service accounts (identities for automation) and their tokens');

  accounts
    .command('list')
    .description('List service accounts')
    .action(async () => {
      const { serviceAccounts } = await (
        await signedInClient()
      ).call<{ serviceAccounts: ServiceAccount[] }>('GET', '/api/serviceaccounts/');
      printResult(serviceAccounts, {
        headers: ['NAME', 'ROLE', 'STATUS', 'TOKENS', 'CREATED'],
        rows: serviceAccounts.map((a) => [a.name, a.role, a.disabled ? 'disabled' : 'active', a.tokens, a.createdAt]),
        wide: {
          headers: ['ID', 'CREATED BY', 'DESCRIPTION'],
          rows: serviceAccounts.map((a) => [a.id, a.createdBy, a.description ?? '']),
        },
      });
    });

  accounts
    .command('create')
    .description('Create a service account holding a role (you must hold every permission of that role)')
    .argument('<name>', 'lower-case letters, digits and -')
    .requiredOption('--role <role>', 'a predefined or custom role')
    .option('--description <text>', 'what the account is for')
    .addHelpText(
      'after',
      '\nExample:\n  graphdb-admin serviceaccounts create ci-deployer --role operator --description "CI pipeline"',
    )
    .action(async (name: string, options: { role: string; description?: string }) => {
      const account = await (
        await signedInClient()
      ).call<ServiceAccount>('POST', '/api/serviceaccounts/', {
        name,
        role: options.role,
        ...(options.description ? { description: options.description } : {}),
      });
      printResult(account, () => printLine(`Created service account ${account.name} (${account.role})`));
    });

  accounts
    .command('get')
    .description('Show a service account')
    .argument('<account>', 'name or id')
    .action(async (account: string) => {
      const found = await (await signedInClient()).call<ServiceAccount>('GET', accountPath(account));
      printResult(found, {
        headers: ['NAME', 'ID', 'ROLE', 'STATUS', 'TOKENS', 'CREATED', 'CREATED BY'],
        rows: [
          [
            found.name,
            found.id,
            found.role,
            found.disabled ? 'disabled' : 'active',
            found.tokens,
            found.createdAt,
            found.createdBy,
          ],
        ],
      });
    });

  accounts
    .command('disable')
    .description('Disable a service account: its tokens stop working at once')
    .argument('<account>', 'name or id')
    .option('--enable', 'enable it again instead')
    .action(async (account: string, options: { enable?: boolean }) => {
      const updated = await (
        await signedInClient()
      ).call<ServiceAccount>('PATCH', accountPath(account), { disabled: !options.enable });
      printResult(updated, () => printLine(`${updated.name} ${options.enable ? 'enabled' : 'disabled'}`));
    });

  withYes(
    accounts
      .command('delete')
      .description('Delete a service account and its tokens')
      .argument('<account>', 'name or id'),
  ).action(async (account: string, options: ConfirmOptions) => {
    await confirmDestructive(`Delete service account ${account} and its tokens`, account, options);
    await (await signedInClient()).call<unknown>('DELETE', accountPath(account));
    printResult({ deleted: account }, () => printLine(`Deleted service account ${account}`));
  });

  const tokens = accounts.command('tokens').description("Manage a service account's tokens");

  tokens
    .command('list')
    .description("List a service account's tokens (never their values)")
    .argument('<account>', 'name or id')
    .action(async (account: string) => {
      const answer = await (await signedInClient()).call<{ tokens: Token[] }>('GET', `${accountPath(account)}/tokens`);
      printResult(answer.tokens, {
        headers: ['ID', 'NAME', 'EXPIRES', 'STATUS', 'LAST USED'],
        rows: answer.tokens.map((t) => [
          t.id,
          t.name,
          t.expiresAt,
          t.expired ? 'expired' : 'valid',
          t.lastUsedAt ?? null,
        ]),
        wide: {
          headers: ['LAST USED FROM', 'ALLOWED FROM', 'CREATED', 'CREATED BY'],
          rows: answer.tokens.map((t) => [
            t.lastUsedIp ?? null,
            t.allowedCidrs.join(',') || 'any',
            t.createdAt,
            t.createdBy,
          ]),
        },
      });
    });

  tokens
    .command('create')
    .description('Create a token for a service account; its value is printed once and cannot be read again')
    .argument('<account>', 'name or id')
    .requiredOption('--name <name>', 'what the token is for, e.g. the pipeline')
    .requiredOption('--expires-in-days <days>', 'days until it stops working (required)', wholeNumber(1, 3650))
    .option('--allowed-cidr <cidr>', 'only from this address or CIDR block (repeatable)', repeatable)
    .addHelpText(
      'after',
      '\nExample:\n  graphdb-admin serviceaccounts tokens create ci-deployer --name github-actions --expires-in-days 90 -o json | jq -r .key',
    )
    .action(async (account: string, options: { name: string; expiresInDays: number; allowedCidr?: string[] }) => {
      const created = await (
        await signedInClient()
      ).call<{ token: Token; key: string }>('POST', `${accountPath(account)}/tokens`, {
        name: options.name,
        expiresInDays: options.expiresInDays,
        ...(options.allowedCidr ? { allowedCidrs: options.allowedCidr } : {}),
      });
      printResult(created, () => {
        printLine(`Token ${created.token.id} (${created.token.name}), expires ${created.token.expiresAt}.`);
        printLine('Its value is shown this once; store it as a secret (GRAPHDB_ADMIN_TOKEN):');
        printLine(created.key);
      });
    });

  tokens
    .command('generate')
    .description(
      "Print a new token's text without asking the server, for a Secret the chart's service account bootstrap reads",
    )
    .addHelpText(
      'after',
      '\nExample:\n  kubectl create secret generic argocd-graphdb-token --from-literal=token="$(graphdb-admin serviceaccounts tokens generate)"',
    )
    .action(() => {
      printLine(newTokenText());
    });

  withYes(
    tokens
      .command('revoke')
      .description('Revoke a token: it stops working at once')
      .argument('<account>', 'name or id')
      .argument('<tokenId>'),
  ).action(async (account: string, tokenId: string, options: ConfirmOptions) => {
    await confirmDestructive(`Revoke token ${tokenId} of ${account}`, tokenId, options);
    await (
      await signedInClient()
    ).call<unknown>('DELETE', `${accountPath(account)}/tokens/${encodeURIComponent(tokenId)}`);
    printResult({ revoked: tokenId }, () => printLine(`Revoked token ${tokenId}`));
  });
}
