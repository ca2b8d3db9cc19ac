// How the data-protection adapters reach the Kubernetes API: the two clients, the one translation of its errors,
// and list/get/create/delete of a namespaced kind that parse each reply with the kind's schema, skipping (with a
// warning) an object that does not parse.
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { z } from 'zod';
import type { PlatformLogger } from '../logger.js';
import { PortError } from '../port-errors.js';
import { countedKubeErrors, isNotFound } from './kube-errors.js';
import { INSTANCE_LABEL } from '../../lib/kubernetes-labels.js';
import { GROUP, LIST_LIMIT, VERSION } from './kubeblocks-backup-records.js';

export interface KubeBlocksBackupsOptions {
  /** Where repository credentials are written (the server's namespace). */
  secretNamespace: string;
  logger: PlatformLogger;
  onError?: (kind: string) => void;
}

/** Parses each untyped object with `schema`, then turns it into a record (undefined: leave it out). */
export type ToRecord<S extends z.ZodType, R> = (raw: z.infer<S>) => R | undefined;

export type DataProtectionAccess = ReturnType<typeof dataProtectionAccess>;

export function dataProtectionAccess(kubeConfig: KubeConfig, options: KubeBlocksBackupsOptions) {
  const objects = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const counted = countedKubeErrors(options.onError);
  const failed = (error: unknown, verb: string, what: string, namespace?: string) =>
    counted(error, { verb, resource: what, ...(namespace ? { namespace } : {}) });
  const params = (plural: string) => ({ group: GROUP, version: VERSION, plural });

  function parseAll<S extends z.ZodType, R>(schema: S, items: unknown[], to: ToRecord<S, R>): R[] {
    return items.flatMap((item) => {
      const parsed = schema.safeParse(item);
      if (!parsed.success) {
        options.logger.warn(
          { reason: parsed.error.issues[0]?.message, name: (item as { metadata?: { name?: string } }).metadata?.name },
          'skipping a data-protection object that does not parse',
        );
        return [];
      }
      const record = to(parsed.data);
      return record === undefined ? [] : [record];
    });
  }

  async function listOf<S extends z.ZodType, R>(
    plural: string,
    namespace: string,
    cluster: string,
    schema: S,
    to: ToRecord<S, R>,
  ): Promise<R[]> {
    try {
      const reply = (await objects.listNamespacedCustomObject({
        ...params(plural),
        namespace,
        labelSelector: `${INSTANCE_LABEL}=${cluster}`,
        limit: LIST_LIMIT,
      })) as { items?: unknown[] };
      return parseAll(schema, reply.items ?? [], to);
    } catch (error) {
      // No such kind (KubeBlocks installed without data protection): nothing to list.
      if (isNotFound(error)) return [];
      throw failed(error, 'list', plural, namespace);
    }
  }

  async function getOf<S extends z.ZodType, R>(
    plural: string,
    namespace: string,
    name: string,
    schema: S,
    to: ToRecord<S, R>,
  ): Promise<R | undefined> {
    try {
      return parseAll(schema, [await objects.getNamespacedCustomObject({ ...params(plural), namespace, name })], to)[0];
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw failed(error, 'get', `${plural}/${name}`, namespace);
    }
  }

  async function createOf<S extends z.ZodType, R>(
    plural: string,
    namespace: string,
    body: Record<string, unknown>,
    schema: S,
    to: ToRecord<S, R>,
  ): Promise<R> {
    let reply: unknown;
    try {
      reply = await objects.createNamespacedCustomObject({ ...params(plural), namespace, body });
    } catch (error) {
      throw failed(error, 'create', plural, namespace);
    }
    const [record] = parseAll(schema, [reply], to);
    if (!record) throw new PortError('unavailable', `the API server answered an unreadable ${plural} object`);
    return record;
  }

  async function deleteOf(plural: string, namespace: string, name: string): Promise<boolean> {
    try {
      await objects.deleteNamespacedCustomObject({ ...params(plural), namespace, name });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw failed(error, 'delete', `${plural}/${name}`, namespace);
    }
  }

  return { objects, core, failed, params, parseAll, listOf, getOf, createOf, deleteOf };
}
