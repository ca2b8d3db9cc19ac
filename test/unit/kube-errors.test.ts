// Every Kubernetes API failure becomes one port error with a message that says what to fix.
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { countedKubeErrors, translateKubeError } from '../../src/platform/kubernetes/kube-errors.js';
import { AlreadyExistsError, StaleVersionError, StoreRejectedError } from '../../src/platform/stores/ports.js';

const target = { verb: 'update', resource: 'secrets/graphdb-admin-users', namespace: 'graphdb-system' };
const api = (code: number, body: unknown) => new ApiException(code, 'HTTP request failed', body, {});

describe('Kubernetes failures as port errors', () => {
  it('401: our credentials were refused', () => {
    const error = translateKubeError(api(401, { kind: 'Status', reason: 'Unauthorized' }), target);
    expect(error).toMatchObject({
      kind: 'unauthenticated',
      message: "The Kubernetes API server refused the server's credentials",
    });
  });

  it('403: names the verb, the kind and the namespace to grant', () => {
    const error = translateKubeError(
      api(403, '{"kind":"Status","reason":"Forbidden","message":"secrets \\"x\\" is forbidden"}'),
      target,
    );
    expect(error).toMatchObject({
      kind: 'forbidden',
      message:
        "The server's service account may not update secrets in namespace graphdb-system; grant it in the chart's Role",
    });
  });

  it('404: not found, for the caller to decide', () => {
    expect(translateKubeError(api(404, { reason: 'NotFound' }), target).kind).toBe('not-found');
  });

  it('409: a stale version or an existing name, told apart by the Status reason', () => {
    expect(translateKubeError(api(409, { reason: 'Conflict' }), target)).toBeInstanceOf(StaleVersionError);
    const exists = translateKubeError(api(409, JSON.stringify({ reason: 'AlreadyExists' })), target);
    expect(exists).toBeInstanceOf(AlreadyExistsError);
    expect(exists.kind).toBe('conflict');
  });

  it("422: rejected, with the API server's reason", () => {
    const error = translateKubeError(
      api(422, { reason: 'Invalid', message: 'spec.replicas: Invalid value: -1' }),
      target,
    );
    expect(error).toBeInstanceOf(StoreRejectedError);
    expect(error).toMatchObject({
      kind: 'rejected',
      message: 'Kubernetes rejected secrets/graphdb-admin-users: spec.replicas: Invalid value: -1',
    });
  });

  it.each([500, 502, 503, 504])('%i: unavailable', (code) => {
    expect(translateKubeError(api(code, 'upstream connect error'), target)).toMatchObject({
      kind: 'unavailable',
      message: `The Kubernetes API server answered ${code} to update secrets/graphdb-admin-users`,
    });
  });

  it('a timeout and an unreachable server', () => {
    const abort = Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
    expect(translateKubeError(abort, target)).toMatchObject({
      kind: 'timeout',
      message: 'The Kubernetes API server did not answer in time',
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443\n    at stack'), {
      code: 'ECONNREFUSED',
    });
    expect(translateKubeError(refused, target)).toMatchObject({
      kind: 'unavailable',
      message: 'The Kubernetes API server cannot be reached (connect ECONNREFUSED 127.0.0.1:6443)',
    });
  });

  it('a body that is not JSON (a proxy page) or is empty still translates', () => {
    expect(translateKubeError(api(422, '<html>bad gateway</html>'), target).message).toBe(
      'Kubernetes rejected secrets/graphdb-admin-users: invalid object',
    );
    expect(translateKubeError(api(409, ''), target)).toBeInstanceOf(StaleVersionError);
    expect(translateKubeError(api(403, undefined), { verb: 'get', resource: 'cluster team-a/db1' }).message).toBe(
      "The server's service account may not get cluster team-a/db1; grant it in the chart's Role",
    );
  });
});

describe('countedKubeErrors', () => {
  it('counts each failure by its status code or as unreachable, but not a 404, and translates them all', () => {
    const kinds: string[] = [];
    const counted = countedKubeErrors((kind) => kinds.push(kind));
    expect(counted(api(403, {}), target).kind).toBe('forbidden');
    expect(counted(api(404, {}), target).kind).toBe('not-found');
    expect(counted(new Error('connect ECONNREFUSED 10.0.0.1:443'), target).kind).toBe('unavailable');
    expect(kinds).toEqual(['403', 'unreachable']);
  });
});
