// Local sign-in: the switch in settings, the per-address and per-account throttle, the password check, the new
// session's cookies and the recorded login. The route only sets what this returns.
import { ForbiddenError, UnauthorizedError } from '../../http/http-errors.js';
import type { CookieToSet } from '../cookies.js';
import type { AdminContext } from '../context.js';
import type { StoredUser } from '../users/user-store.js';

export const INVALID_LOGIN = 'Invalid email or password';

export function createLoginService(context: AdminContext) {
  return {
    async login(
      clientAddress: string,
      email: string,
      password: string,
    ): Promise<{ user: StoredUser; cookies: CookieToSet[]; token: string }> {
      const settings = await context.settings.current();
      if (!settings.features.local_users_enabled) throw new ForbiddenError('Local sign-in is disabled');
      const end = context.loginThrottle.begin(clientAddress, email);
      let user: StoredUser | undefined;
      try {
        user = await context.users.verifyLocalLogin(email, password);
      } finally {
        end(user !== undefined);
      }
      if (!user) throw new UnauthorizedError(INVALID_LOGIN);
      const cookies = await context.sessions.start(user);
      await context.users.recordLogin(user.id);
      // The JWT the cookies carry, also answered in the body as the FalkorDB Enterprise admin API does (docs/decisions/identity-routes.md).
      return { user: (await context.users.findById(user.id)) ?? user, cookies, token: cookies[0]!.value };
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
