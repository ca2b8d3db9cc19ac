// Local sign-in: the switch in settings, the per-address and per-account throttle, the password check, the new
// session's cookies and the recorded login; the same throttle guards a signed-in user's own password change. The
// routes only set what this returns.
import type { Config } from '../../config.js';
import { ForbiddenError, UnauthorizedError } from '../../http/http-errors.js';
import type { CookieToSet } from '../cookies.js';
import { configuredProviders } from '../oauth/providers.js';
import type { SettingsService } from '../settings/settings-service.js';
import type { UserService } from '../users/user-service.js';
import type { StoredUser } from '../users/user-store.js';
import type { LoginThrottle } from './login-throttle.js';
import type { SessionService } from './session-service.js';

export const INVALID_LOGIN = 'Invalid email or password';

export interface LoginServiceDeps {
  settings: Pick<SettingsService, 'current'>;
  users: UserService;
  sessions: Pick<SessionService, 'start'>;
  loginThrottle: LoginThrottle;
  oauthEnv: Config['oauthEnv'];
}

export function createLoginService({ settings, users, sessions, loginThrottle, oauthEnv }: LoginServiceDeps) {
  return {
    async login(
      clientAddress: string,
      email: string,
      password: string,
    ): Promise<{ user: StoredUser; cookies: CookieToSet[]; token: string }> {
      const { features } = await settings.current();
      if (!features.local_users_enabled) throw new ForbiddenError('Local sign-in is disabled');
      const end = loginThrottle.begin(clientAddress, email);
      let user: StoredUser | undefined;
      try {
        user = await users.verifyLocalLogin(email, password);
      } finally {
        end(user !== undefined);
      }
      if (!user) throw new UnauthorizedError(INVALID_LOGIN);
      const cookies = await sessions.start(user);
      await users.recordLogin(user.id);
      // The JWT the cookies carry, also answered in the body as the FalkorDB Enterprise admin API does (docs/decisions/identity-routes.md).
      return { user: (await users.findById(user.id)) ?? user, cookies, token: cookies[0]!.value };
    },

    /**
     * A signed-in user's new password, given the current one: a wrong current password counts as a failed sign-in
     * attempt of that address and account. Answers the caller's renewed session cookies (the others end).
     */
    async changeOwnPassword(
      clientAddress: string,
      caller: { id: string; email: string },
      currentPassword: string,
      newPassword: string,
    ): Promise<CookieToSet[]> {
      const end = loginThrottle.begin(clientAddress, caller.email);
      let changed;
      try {
        changed = await users.changeOwnPassword(caller.id, currentPassword, newPassword);
      } catch (error) {
        // Only a wrong current password counts as a failed guess.
        end(!(error instanceof UnauthorizedError));
        throw error;
      }
      end(true);
      return sessions.start(changed);
    },

    /** The sign-in methods the login page offers: local, and each configured OAuth provider. */
    async methods() {
      const current = await settings.current();
      return [
        { type: 'local' as const, enabled: current.features.local_users_enabled },
        ...configuredProviders(current, oauthEnv).map((provider) => ({
          type: provider.type,
          enabled: current.features.oauth2_enabled,
          clientId: provider.clientId,
        })),
      ];
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
