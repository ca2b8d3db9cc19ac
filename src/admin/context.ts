// What the admin API's routes share.
import type { Config } from '../config.js';
import type { ChangeChannel } from '../platform/redis/change-channel.js';
import type { RbacService } from './rbac/rbac-service.js';
import type { LoginThrottle } from './sessions/login-throttle.js';
import type { SessionService } from './sessions/session-service.js';
import type { SettingsService } from './settings/settings-service.js';
import type { UserService } from './users/user-service.js';

export interface AdminContext {
  /** The server's namespace: where settings and users live and are permission-checked. */
  namespace: string;
  oauthEnv: Config['oauthEnv'];
  settings: SettingsService;
  users: UserService;
  /** Roles and group mappings: what each role may do (permission checks), and `roleExists` for the users feature. */
  rbac: RbacService;
  sessions: SessionService;
  loginThrottle: LoginThrottle;
  /** Tells every replica at once that users, roles or settings changed (their caches listen). */
  changes: ChangeChannel;
}
