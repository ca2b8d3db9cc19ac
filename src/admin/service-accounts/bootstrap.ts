// Applies the service accounts SERVICE_ACCOUNTS_BOOTSTRAP declares (parsed with the configuration,
// lib/service-accounts-bootstrap.ts): the store is made to match at every start, and the log says what changed by
// names only.
import type { FastifyBaseLogger } from 'fastify';
import type { BootstrapAccount } from '../../lib/service-accounts-bootstrap.js';
import type { ServiceAccountService } from './service-account-service.js';

/** Applies the declaration at start-up and says what it did, by names only. */
export async function bootstrapServiceAccounts(
  service: Pick<ServiceAccountService, 'applyBootstrap'>,
  declared: readonly BootstrapAccount[],
  logger: Pick<FastifyBaseLogger, 'info' | 'warn'>,
): Promise<void> {
  const { created, changed, expired } = await service.applyBootstrap(declared);
  logger.info(
    { created, changed, declared: declared.map((account) => account.name) },
    `service accounts bootstrap: ${created.length} created, ${changed.length} changed, ${declared.length - created.length - changed.length} as declared`,
  );
  if (expired.length > 0)
    logger.warn({ expired }, `service accounts bootstrap: declared tokens already expired: ${expired.join(', ')}`);
}
