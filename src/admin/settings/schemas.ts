// The settings document (the schema of the settings route's GET response): strict zod objects for what is stored,
// a partial variant for PATCH that also takes the write-only values, the defaults of a fresh install, and where
// each write-only value is kept.
import { compile } from '@jmespath-community/jmespath';
import { z } from 'zod';
import { EmailSchema } from '../../lib/email.js';
import { DNS_SUBDOMAIN_CHARACTERS } from '../../lib/kubernetes-names.js';
import { SERVICE_ACCOUNTS_SECRET } from '../service-accounts/service-account-store.js';
import { USERS_SECRET } from '../users/user-store.js';

const emptyOr = <T extends z.ZodType>(schema: T) => z.union([z.literal(''), schema]);

/** DNS-1123 subdomain, as Kubernetes requires of a Secret name. */
export const SecretNameSchema = z
  .string()
  .max(253)
  .regex(DNS_SUBDOMAIN_CHARACTERS, 'must be a Kubernetes Secret name (lower-case letters, digits, `-` and `.`)')
  // The user store is the server's own: a setting naming it could read it as a credential or overwrite it.
  .refine((name) => name !== USERS_SECRET, `must not name the server's user store (${USERS_SECRET})`)
  .refine(
    (name) => name !== SERVICE_ACCOUNTS_SECRET,
    `must not name the server's service account store (${SERVICE_ACCOUNTS_SECRET})`,
  );
const DomainSchema = z
  .string()
  .max(253)
  .regex(/^(?!-)([a-z0-9-]{1,63}(?<!-)\.)+[a-z]{2,63}$/i, 'must be a domain name such as corp.example');
const RedirectUriSchema = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
const JmesPathSchema = z
  .string()
  .max(4096)
  .refine((expression) => {
    if (expression === '') return true;
    try {
      compile(expression);
      return true;
    } catch {
      return false;
    }
  }, 'must be a valid JMESPath expression');

const Features = z.strictObject({
  oauth2_enabled: z.boolean().describe('OAuth sign-in (providers alpha and beta) is offered'),
  local_users_enabled: z.boolean().describe('Sign-in with a local e-mail and password is offered'),
  self_service_onboarding: z
    .boolean()
    .describe(
      "The console's Auto-Onboard OAuth Users: the first OAuth sign-in of an unknown user creates the user (role from role_attribute_path, else viewer). Always equal to oauth.auto_onboard_users; writing either sets both.",
    ),
  multi_cluster_mode: z
    .boolean()
    .describe(
      'Off: every cluster route sees only CLUSTER_NAMESPACE. On: every namespace, filtered by the permissions of the caller.',
    ),
  backup_auto_schedule: z.boolean().describe('New deployments get a backup schedule'),
  metrics_collection: z.boolean().describe('The Prometheus exporter serves metrics'),
  api_docs_enabled: z.boolean().describe('The API documentation UI is served at /api-docs'),
});
const OAuthPolicy = z.strictObject({
  allowed_domains: z
    .array(DomainSchema)
    .max(100)
    .describe('E-mail domains allowed to sign in with OAuth; empty: any account the provider accepts'),
  role_attribute_strict: z
    .boolean()
    .describe('Refuse an OAuth sign-in whose role claim (role_attribute_path) is missing or unknown'),
  auto_onboard_users: z.boolean().describe('The earlier name of features.self_service_onboarding, kept as an alias'),
  role_attribute_path: JmesPathSchema.describe('A JMESPath expression that reads the role from the OAuth profile'),
});
const CLIENT_ID = 'The OAuth client ID';
const REDIRECT_URI = 'The callback URI; must equal the one registered at the provider';
const SECRET_REF = 'The Kubernetes Secret holding the client secret (data key `client_secret`)';
const AlphaOAuth = z.strictObject({
  client_id: z.string().max(512).describe(CLIENT_ID),
  redirect_uri: emptyOr(RedirectUriSchema).describe(REDIRECT_URI),
  client_secret_secret_ref: emptyOr(SecretNameSchema).describe(SECRET_REF),
});
const BetaOAuth = z.strictObject({
  client_id: z.string().max(512).describe('The application (client) ID'),
  tenant_id: emptyOr(z.string().regex(/^[A-Za-z0-9.-]{1,128}$/, 'must be a tenant id (GUID) or domain')).describe(
    'The directory tenant ID',
  ),
  redirect_uri: emptyOr(RedirectUriSchema).describe(REDIRECT_URI),
  client_secret_secret_ref: emptyOr(SecretNameSchema).describe(SECRET_REF),
});
const AlphaWorkspace = z.strictObject({
  domain: emptyOr(DomainSchema).describe('The group directory domain'),
  admin_email: emptyOr(EmailSchema).describe('The delegated admin used as the subject of group lookups'),
  service_account_email: emptyOr(EmailSchema).describe('The service account that looks groups up'),
  private_key_secret_ref: emptyOr(SecretNameSchema).describe(
    'The Kubernetes Secret holding the service account key (data key `private_key`)',
  ),
});
const Retention = z.strictObject({
  audit_log_retention_days: z.int().min(1).max(3650).describe('Days audit entries are kept'),
  metrics_retention_days: z
    .int()
    .min(1)
    .max(3650)
    .describe(
      'Accepted and stored, but ignored: this server keeps no metrics history (the Prometheus that scrapes the exporter decides how long samples live).',
    ),
});
const Metrics = z.strictObject({
  exporter_port: z
    .int()
    .min(1, 'must be a port between 1 and 65535')
    .max(65535, 'must be a port between 1 and 65535')
    .describe('The port the Prometheus exporter listens on'),
});
const ServiceAccounts = z.strictObject({
  enabled: z
    .boolean()
    .describe(
      'Off: every service account token is refused (401) at once, on every replica; sign-in policy does not apply to them',
    ),
  max_token_lifetime_days: z
    .int()
    .min(1)
    .max(3650)
    .describe('The longest expiry a new service account token may be given'),
});
/** Bounds of the free-form `ui` object (a 4,000-level object broke every later PATCH). */
export const UI_MAX_DEPTH = 16;
export const UI_MAX_BYTES = 65_536;

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';

/** Whether `value` nests objects and arrays more than `limit` levels (itself is 1); no recursion, stops past `limit`. */
function deeperThan(value: unknown, limit: number): boolean {
  let level: object[] = isContainer(value) ? [value] : [];
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > limit) return true;
    level = level.flatMap((item) => Object.values(item).filter(isContainer));
  }
  return false;
}

/** Why a ui object is out of bounds, or undefined. */
export function uiProblem(ui: unknown): string | undefined {
  if (deeperThan(ui, UI_MAX_DEPTH)) return `must be at most ${UI_MAX_DEPTH} levels deep`;
  if (Buffer.byteLength(JSON.stringify(ui) ?? '', 'utf8') > UI_MAX_BYTES)
    return `must be at most ${UI_MAX_BYTES} bytes as JSON`;
  return undefined;
}

// Free-form console preferences; bodies arrive as JSON, so every value is JSON already.
const Ui = z.record(z.string().max(128), z.unknown()).superRefine((ui, context) => {
  const problem = uiProblem(ui);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

export const SettingsSchema = z
  .strictObject({
    features: Features.describe('Features turned on or off'),
    oauth: OAuthPolicy.describe('The OAuth sign-in policy'),
    alpha_oauth: AlphaOAuth.describe('Provider alpha'),
    beta_oauth: BetaOAuth.describe('Provider beta'),
    alpha_workspace: AlphaWorkspace.describe("Group lookups in provider alpha's directory"),
    retention: Retention.describe('How long records are kept'),
    metrics: Metrics.describe('The Prometheus exporter'),
    service_accounts: ServiceAccounts.describe('Service accounts'),
    ui: Ui.describe("The console's own preferences (free-form)"),
  })
  .meta({ id: 'StoredSettings' });
export type Settings = z.infer<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  features: {
    oauth2_enabled: true,
    local_users_enabled: true,
    self_service_onboarding: false,
    multi_cluster_mode: false,
    backup_auto_schedule: false,
    metrics_collection: true,
    api_docs_enabled: true,
  },
  oauth: { allowed_domains: [], role_attribute_strict: false, auto_onboard_users: false, role_attribute_path: '' },
  alpha_oauth: { client_id: '', redirect_uri: '', client_secret_secret_ref: '' },
  beta_oauth: { client_id: '', tenant_id: '', redirect_uri: '', client_secret_secret_ref: '' },
  alpha_workspace: { domain: '', admin_email: '', service_account_email: '', private_key_secret_ref: '' },
  retention: { audit_log_retention_days: 90, metrics_retention_days: 30 },
  metrics: { exporter_port: 9090 },
  service_accounts: { enabled: true, max_token_lifetime_days: 365 },
  ui: {},
};

/**
 * The document as GET and PATCH answer it: an e-mail field that is unset is left out rather than sent as "",
 * which would fail the documented `format: email`.
 */
export const SettingsViewSchema = SettingsSchema.extend({
  alpha_workspace: AlphaWorkspace.extend({
    admin_email: EmailSchema.optional(),
    service_account_email: EmailSchema.optional(),
  }).describe("Group lookups in provider alpha's directory"),
}).meta({
  id: 'Settings',
  // The defaults (the unset e-mail fields left out), with provider alpha configured and sign-in limited to one domain.
  examples: [
    {
      ...DEFAULT_SETTINGS,
      oauth: { ...DEFAULT_SETTINGS.oauth, allowed_domains: ['example.com'] },
      alpha_oauth: {
        client_id: '123456789012-abc.apps.example.com',
        redirect_uri: 'https://graphdb.example.com/api/auth/oauth/alpha/callback',
        client_secret_secret_ref: 'graphdb-alpha-oauth',
      },
      alpha_workspace: { domain: '', private_key_secret_ref: '' },
    },
  ],
});
export type SettingsView = z.infer<typeof SettingsViewSchema>;

export function settingsView(settings: Settings): SettingsView {
  const { admin_email, service_account_email, ...workspace } = settings.alpha_workspace;
  return {
    ...settings,
    alpha_workspace: {
      ...workspace,
      ...(admin_email ? { admin_email } : {}),
      ...(service_account_email ? { service_account_email } : {}),
    },
  };
}

const WRITE_ONLY_VALUE = z.string().max(65_536);

export const SettingsPatchSchema = z
  .strictObject({
    features: Features.partial().optional().describe('Features to turn on or off'),
    oauth: OAuthPolicy.partial().optional().describe('Fields of the OAuth sign-in policy to change'),
    alpha_oauth: AlphaOAuth.extend({
      client_secret: WRITE_ONLY_VALUE.describe("Provider alpha's client secret: stored in a Secret, never answered"),
    })
      .partial()
      .optional()
      .describe('Fields of provider alpha to change'),
    beta_oauth: BetaOAuth.extend({
      client_secret: WRITE_ONLY_VALUE.describe("Provider beta's client secret: stored in a Secret, never answered"),
    })
      .partial()
      .optional()
      .describe('Fields of provider beta to change'),
    alpha_workspace: AlphaWorkspace.extend({
      private_key: WRITE_ONLY_VALUE.describe(
        "The directory service account's private key: stored in a Secret, never answered",
      ),
    })
      .partial()
      .optional()
      .describe("Fields of the group lookups in provider alpha's directory to change"),
    retention: Retention.partial().optional().describe('Retention periods to change'),
    metrics: Metrics.partial().optional().describe('Fields of the Prometheus exporter to change'),
    service_accounts: ServiceAccounts.partial().optional().describe('Service account settings to change'),
    ui: Ui.optional().describe("The console's own preferences (free-form), replaced whole"),
  })
  .meta({
    id: 'SettingsPatch',
    examples: [
      {
        alpha_oauth: {
          client_id: '123456789012-abc.apps.example.com',
          client_secret_secret_ref: 'graphdb-alpha-oauth',
          client_secret: 'a client secret',
        },
        oauth: { allowed_domains: ['example.com'] },
      },
    ],
  });
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;

/** Each write-only value: the section it belongs to, the field naming its Secret, and the Secret's data key. */
export const WRITE_ONLY_FIELDS = [
  { section: 'alpha_oauth', field: 'client_secret', ref: 'client_secret_secret_ref', dataKey: 'client_secret' },
  { section: 'beta_oauth', field: 'client_secret', ref: 'client_secret_secret_ref', dataKey: 'client_secret' },
  { section: 'alpha_workspace', field: 'private_key', ref: 'private_key_secret_ref', dataKey: 'private_key' },
] as const;
