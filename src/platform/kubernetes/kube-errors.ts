// The one place where Kubernetes API failures become port errors, with messages that say what to fix (the RBAC
// verb to grant, the server that cannot be reached), never the API server's raw text beyond a 422's reason.
import { ApiException } from '@kubernetes/client-node';
import { PortError } from '../port-errors.js';
import { AlreadyExistsError, StaleVersionError, StoreRejectedError } from '../stores/ports.js';

/** What was being done when the API failed: `get` of `secrets/graphdb-admin-users` in `graphdb-system`. */
export interface KubeTarget {
  verb: string;
  /** `kind/name` or a description such as `the KubeBlocks API`. */
  resource: string;
  namespace?: string;
}

interface StatusBody {
  message?: string;
  reason?: string;
}

/** A Status body may arrive as an object, as JSON text, or as text that is not JSON at all (a proxy's error page). */
export function statusBodyOf(raw: unknown): StatusBody {
  if (raw && typeof raw === 'object') return raw;
  if (typeof raw !== 'string' || raw === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function where(target: KubeTarget): string {
  return target.namespace ? ` in namespace ${target.namespace}` : '';
}

/** The API answered 404: the object (or its kind) does not exist, an answer rather than a failure. */
export const isNotFound = (error: unknown): boolean => error instanceof ApiException && error.code === 404;

/**
 * translateKubeError that also reports each failure's kind to `onError` (the status code, or `unreachable`), for the
 * API error counter; a 404 is not counted, since callers expect it.
 */
export function countedKubeErrors(onError: ((kind: string) => void) | undefined) {
  return (error: unknown, target: KubeTarget): PortError => {
    if (!isNotFound(error)) onError?.(error instanceof ApiException ? String(error.code) : 'unreachable');
    return translateKubeError(error, target);
  };
}

/** Translates any failure of a Kubernetes API call. A 404 becomes a `not-found` port error: callers decide what it means. */
export function translateKubeError(error: unknown, target: KubeTarget): PortError {
  if (error instanceof PortError) return error;
  if (!(error instanceof ApiException)) {
    if (isTimeout(error))
      return new PortError('timeout', 'The Kubernetes API server did not answer in time', { cause: error });
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return new PortError('unavailable', `The Kubernetes API server cannot be reached (${reason})`, { cause: error });
  }
  const body = statusBodyOf(error.body);
  // `secrets/graphdb-admin-users` names a kind to grant; a description such as `cluster ns/name` stays whole.
  const kind = /^[a-z0-9.-]+\/[^/\s]+$/.test(target.resource) ? target.resource.split('/')[0] : target.resource;
  switch (error.code) {
    case 401:
      return new PortError('unauthenticated', "The Kubernetes API server refused the server's credentials", {
        cause: error,
      });
    case 403:
      return new PortError(
        'forbidden',
        `The server's service account may not ${target.verb} ${kind}${where(target)}; grant it in the chart's Role`,
        { cause: error },
      );
    case 404:
      return new PortError('not-found', `${target.resource} not found${where(target)}`, { cause: error });
    case 409:
      return body.reason === 'AlreadyExists'
        ? new AlreadyExistsError(target.resource)
        : new StaleVersionError(target.resource);
    case 422:
      return new StoreRejectedError(`Kubernetes rejected ${target.resource}: ${body.message ?? 'invalid object'}`);
    default:
      return new PortError(
        'unavailable',
        `The Kubernetes API server answered ${error.code} to ${target.verb} ${target.resource}`,
        { cause: error },
      );
  }
}
