// What an audit entry says about a request, derived only from the matched route pattern, the method, the path
// parameters and the status: never from a body, a header or a route's own annotation, so routes added later are
// audited the same way. A route may name the resource a create made (request.auditResourceName), since the path
// of a create does not. Pure; unit-tested in test/unit/audit-mapping.test.ts.
import type { AuditResult } from '../../platform/stores/audit-query.js';

export interface AuditSubject {
  action: string;
  resourceType: string;
  resourceName?: string;
  /** The deployment the call was about (cluster routes, and creates of a cluster): what its events list. */
  cluster?: string;
  /** True for sign-ins: recorded even without a session. */
  signIn: boolean;
}

export interface RouteCall {
  method: string;
  /** The matched route pattern, e.g. `/api/users/:id` (with or without a trailing slash). */
  pattern: string;
  params: Record<string, unknown>;
  /** The e-mail of the session user, for `me` paths. */
  actor?: string;
  /** What the route set on request.auditResourceName, if anything: it names the resource instead of the path. */
  resourceName?: string;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const METHOD_VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

/** Sign-ins (any outcome) and sign-outs: fixed subjects, since their paths name no resource. */
const SESSION_ROUTES: Record<string, (params: Record<string, unknown>) => Omit<AuditSubject, 'signIn'>> = {
  'POST /api/auth/login': () => ({ action: 'auth.login', resourceType: 'session', resourceName: 'local' }),
  'POST /api/auth/oauth/cli/token': () => ({
    action: 'auth.login',
    resourceType: 'session',
    resourceName: 'oauth-cli',
  }),
  'GET /api/auth/oauth/:provider/callback': (params) => ({
    action: 'auth.login',
    resourceType: 'session',
    resourceName: typeof params.provider === 'string' ? params.provider : 'oauth',
  }),
  'GET /api/auth/oauth/callback': () => ({ action: 'auth.login', resourceType: 'session', resourceName: 'oauth' }),
  'POST /api/auth/logout': () => ({ action: 'auth.logout', resourceType: 'session' }),
};

/** Verb segments whose audited name differs from the segment (the FalkorDB Enterprise admin API audits a reset as a change). */
const VERB_ALIASES: Record<string, string> = { 'reset-password': 'password_change', password: 'password_change' };
/** Plural-looking segments that name one thing or group actions rather than a collection of items. */
const NOT_COLLECTIONS = new Set(['ops', 'settings', 'status', 'diagnostics', 'metrics', 'costs']);
const SINGULARS: Record<string, string> = { ops: 'operation', settings: 'settings', rbac: 'rbac' };

const snake = (segment: string) => segment.replace(/[^A-Za-z0-9]+/g, '_').toLowerCase();

export function singular(segment: string): string {
  const known = SINGULARS[segment];
  if (known) return known;
  if (segment.endsWith('ies')) return snake(`${segment.slice(0, -3)}y`);
  if (segment.endsWith('s') && !segment.endsWith('ss')) return snake(segment.slice(0, -1));
  return snake(segment);
}

const isCollection = (segment: string) => segment.endsWith('s') && !NOT_COLLECTIONS.has(segment);

interface Segment {
  text: string;
  param: boolean;
}

function segmentsOf(pattern: string): Segment[] {
  const path = pattern.split('?', 1)[0]!.replace(/^\/api\//, '');
  return path
    .split('/')
    .filter((part) => part !== '')
    .map((part) => (part.startsWith(':') ? { text: part.slice(1), param: true } : { text: part, param: false }));
}

/** The type of the items a collection segment at `index` holds, prefixed by its parent collection (backup_policy). */
function collectionType(segments: Segment[], index: number): string {
  const own = singular(segments[index]!.text);
  const parent = segments[index - 1];
  return parent && !parent.param && isCollection(parent.text) ? `${singular(parent.text)}_${own}` : own;
}

function paramValue(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Reads that hand out a secret: audited like a change (the secret itself is never recorded). */
const AUDITED_READS: Record<string, (params: Record<string, unknown>) => Omit<AuditSubject, 'signIn'>> = {
  'GET /api/clusters/:clusterName/credentials': (params) => {
    const cluster = paramValue(params, 'clusterName');
    return {
      action: 'cluster.credentials_read',
      resourceType: 'cluster',
      ...(cluster === undefined ? {} : { resourceName: cluster, cluster }),
    };
  },
};

/**
 * The subject of a call, or undefined when the call is not audited (reads, and anything outside /api/).
 *   POST /api/users/                       user.create        (name: request.auditResourceName, if set)
 *   PATCH /api/users/:id                   user.update        name :id
 *   POST /api/users/:email/reset-password  user.password_change
 *   POST /api/clusters/:name/ops/restart   cluster.restart    name :name, cluster :name
 *   DELETE /api/clusters/:c/backups/schedules/:s   backup_schedule.delete   name :s, cluster :c
 */
export function describeCall(call: RouteCall): AuditSubject | undefined {
  const method = call.method.toUpperCase();
  const pattern = call.pattern.length > 1 ? call.pattern.replace(/\/+$/, '') : call.pattern;
  const read = AUDITED_READS[`${method} ${pattern}`];
  if (read) return { ...read(call.params), signIn: false };
  const session = SESSION_ROUTES[`${method} ${pattern}`];
  if (session) return { ...session(call.params), signIn: method !== 'POST' || pattern !== '/api/auth/logout' };
  if (!MUTATING.has(method) || !pattern.startsWith('/api/')) return undefined;
  const segments = segmentsOf(pattern);
  if (segments.length === 0 || segments[0]!.param) return undefined;

  const lastParam = segments.findLastIndex((segment) => segment.param);
  const last = segments.at(-1)!;
  const lastParamValue = lastParam === -1 ? undefined : paramValue(call.params, segments[lastParam]!.text);
  let subject: Omit<AuditSubject, 'signIn' | 'cluster'>;
  if (last.param) {
    // An item: PATCH /users/:id, DELETE /clusters/:c/backups/:b.
    subject = {
      action: `${collectionType(segments, segments.length - 2)}.${METHOD_VERBS[method]}`,
      resourceType: collectionType(segments, segments.length - 2),
      resourceName: call.resourceName ?? lastParamValue,
    };
  } else if (segments.length === 1 || isCollection(last.text)) {
    // A collection (a create) or a singleton at the root (PATCH /settings, PUT /rbac).
    const type =
      segments.length === 1 && !isCollection(last.text)
        ? singular(last.text)
        : collectionType(segments, segments.length - 1);
    subject = { action: `${type}.${METHOD_VERBS[method]}`, resourceType: type, resourceName: call.resourceName };
  } else {
    // An action on the resource the last parameter names (POST /clusters/:c/ops/restart), or, without one, on
    // the resource the segment before it names (POST /rbac/reload, POST /clusters/yaml).
    const verb = VERB_ALIASES[last.text] ?? snake(last.text);
    const me = segments.findIndex((segment) => !segment.param && segment.text === 'me');
    let type: string;
    let name: string | undefined;
    if (lastParam !== -1) {
      type = lastParam > 0 ? collectionType(segments, lastParam - 1) : singular(segments[0]!.text);
      name = call.resourceName ?? lastParamValue;
    } else if (me > 0) {
      type = singular(segments[me - 1]!.text);
      name = call.actor;
    } else {
      type = singular(segments[segments.length - 2]!.text);
      name = call.resourceName;
    }
    subject = { action: `${type}.${verb}`, resourceType: type, resourceName: name };
  }
  const cluster =
    segments[0]!.text === 'clusters' && segments[1]?.param
      ? paramValue(call.params, segments[1].text)
      : subject.resourceType === 'cluster'
        ? subject.resourceName
        : undefined;
  return { ...subject, ...(cluster === undefined ? {} : { cluster }), signIn: false };
}

/**
 * Whether any call of a route can be audited: what describeCall answers depends on the method and the pattern alone
 * (the parameters only name the resource), so the audit hooks are installed on these routes only and a read pays
 * nothing for them.
 */
export function isAuditedRoute(method: string | readonly string[], pattern: string): boolean {
  return [method].flat().some((one) => describeCall({ method: one, pattern, params: {} }) !== undefined);
}

/** Whether a status is a success in the log (redirects included: the OAuth callback marks its own failures). */
export const resultOf = (statusCode: number): AuditResult => (statusCode < 400 ? 'success' : 'failure');

const EMAIL_SHAPE = /^[^\s@]{1,64}@[^\s@]{1,190}$/;

/**
 * The e-mail a local sign-in attempt named, if the field holds something shaped like one (so a password typed
 * into the e-mail field is never recorded). The one body field the audit log reads, and only for sign-ins.
 */
export function attemptedEmail(body: unknown): string | undefined {
  const email = (body as { email?: unknown } | null | undefined)?.email;
  if (typeof email !== 'string') return undefined;
  const trimmed = email.trim().toLowerCase();
  return EMAIL_SHAPE.test(trimmed) ? trimmed : undefined;
}

/** An OAuth callback that answered a browser with `/login?error=<code>` failed, whatever its 302 says. */
export function redirectFailure(location: unknown): string | undefined {
  if (typeof location !== 'string' || !location.startsWith('/login?')) return undefined;
  return new URLSearchParams(location.slice('/login?'.length)).get('error') ?? undefined;
}
