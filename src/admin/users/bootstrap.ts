// The first admin: from ADMIN_EMAIL/ADMIN_PASSWORD when the user store is empty; in embedded mode without them,
// a generated password written to a file only the server's user can read (a password given in ADMIN_PASSWORD never is).
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { ConflictError } from '../../http/http-errors.js';
import type { UserService } from './user-service.js';

export const EMBEDDED_ADMIN_EMAIL = 'admin@localhost';

export interface BootstrapOptions {
  email?: string;
  password?: string;
  /** Embedded mode: where a generated password is written (mode 0600); undefined outside embedded mode. */
  writeGeneratedPassword?: (password: string) => Promise<string>;
  logger: FastifyBaseLogger;
}

export async function bootstrapFirstAdmin(users: UserService, options: BootstrapOptions): Promise<void> {
  if ((await users.list()).length > 0) return;
  let { email, password } = options;
  if (!email || !password) {
    if (!options.writeGeneratedPassword) {
      options.logger.warn(
        'the admin user store is empty: set ADMIN_EMAIL and ADMIN_PASSWORD to create the first admin',
      );
      return;
    }
    email ??= EMBEDDED_ADMIN_EMAIL;
    if (password) {
      // A password given in ADMIN_PASSWORD stays where it was given: it is never written to disk.
      options.logger.info({ email }, `created the first admin ${email} with the password from ADMIN_PASSWORD`);
    } else {
      password = randomBytes(18).toString('base64url');
      const file = await options.writeGeneratedPassword(password);
      options.logger.info({ email, file }, `created the first admin ${email}; its password is in ${file}`);
    }
  } else {
    options.logger.info({ email }, `created the first admin ${email}`);
  }
  try {
    await users.create({ email, name: 'Administrator', role: 'admin', password });
  } catch (error) {
    // Another replica bootstrapped first.
    if (!(error instanceof ConflictError)) throw error;
  }
}
