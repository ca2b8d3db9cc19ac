// Backup repositories on KubeBlocks: cluster-scoped BackupRepo objects, their credentials in a Secret of the
// server's namespace owned by the repository, and the one default repository.
import { ApiException } from '@kubernetes/client-node';
import type { z } from 'zod';
import type { BackupPort, NewRepository, RepositoryChange, RepositoryRecord } from '../backups/backup-port.js';
import { MANAGED_BY_LABEL, MANAGED_BY_THIS_SERVER as MANAGED_BY } from '../../lib/kubernetes-labels.js';
import { PortError } from '../port-errors.js';
import { isNotFound } from './kube-errors.js';
import type { DataProtectionAccess } from './kubeblocks-backup-access.js';
import {
  DEFAULT_REPO_ANNOTATION,
  GROUP,
  LIST_LIMIT,
  RawPolicySchema,
  RawRepoSchema,
  REPO_SECRET_ANNOTATION,
  REPO_TYPE_ANNOTATION,
  repoSecretName,
  toRepositoryRecord,
  VERSION,
} from './kubeblocks-backup-records.js';

type RepositoryMethods = Pick<
  BackupPort,
  | 'listRepositories'
  | 'getRepository'
  | 'createRepository'
  | 'updateRepository'
  | 'repositoryUsers'
  | 'deleteRepository'
>;

/** `secretNamespace`: where repository credentials are written (the server's namespace). */
export function kubeBlocksRepositories(access: DataProtectionAccess, secretNamespace: string): RepositoryMethods {
  const { objects, core, failed, params, parseAll } = access;
  async function readRepo(name: string): Promise<z.infer<typeof RawRepoSchema> | undefined> {
    try {
      const parsed = RawRepoSchema.safeParse(await objects.getClusterCustomObject({ ...params('backuprepos'), name }));
      return parsed.success ? parsed.data : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw failed(error, 'get', `backuprepos/${name}`);
    }
  }

  async function listRepos(): Promise<RepositoryRecord[]> {
    try {
      const reply = (await objects.listClusterCustomObject({ ...params('backuprepos'), limit: LIST_LIMIT })) as {
        items?: unknown[];
      };
      return parseAll(RawRepoSchema, reply.items ?? [], toRepositoryRecord).sort((a, b) =>
        a.name.localeCompare(b.name),
      );
    } catch (error) {
      if (isNotFound(error)) return [];
      throw failed(error, 'list', 'backuprepos');
    }
  }

  /**
   * The repository's credentials Secret as it exists now: undefined when there is none, else whether this server
   * wrote it for that repository (its label and its repository mark or owner reference). A Secret of that name
   * made by anyone else is never replaced: 409 (docs/decisions/tenancy-checks.md).
   */
  async function credentialsSecretOf(repo: string): Promise<{ resourceVersion?: string } | undefined> {
    const name = repoSecretName(repo);
    const namespace = secretNamespace;
    let current;
    try {
      current = await core.readNamespacedSecret({ namespace, name });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw failed(error, 'get', `secrets/${name}`, namespace);
    }
    const metadata = current.metadata ?? {};
    const ours =
      metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY &&
      (metadata.annotations?.[REPO_SECRET_ANNOTATION] === repo ||
        (metadata.ownerReferences ?? []).some((owner) => owner.kind === 'BackupRepo' && owner.name === repo));
    if (!ours)
      throw new PortError(
        'conflict',
        `Secret ${name} in namespace ${namespace} exists and was not created by this server for backup repository ${repo}: remove or rename it first`,
      );
    return { ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}) };
  }

  /** Writes the credentials Secret, owned by the repo so that Kubernetes removes it with the repo. */
  async function writeCredentials(repo: { name: string; uid?: string }, data: Record<string, string>): Promise<void> {
    const name = repoSecretName(repo.name);
    const namespace = secretNamespace;
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name,
        namespace,
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY },
        annotations: { [REPO_SECRET_ANNOTATION]: repo.name },
        ...(repo.uid
          ? {
              ownerReferences: [
                { apiVersion: `${GROUP}/${VERSION}`, kind: 'BackupRepo', name: repo.name, uid: repo.uid },
              ],
            }
          : {}),
      },
      type: 'Opaque',
      stringData: data,
    };
    try {
      await core.createNamespacedSecret({ namespace, body });
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 409))
        throw failed(error, 'create', `secrets/${name}`, namespace);
      const current = await credentialsSecretOf(repo.name);
      try {
        await core.replaceNamespacedSecret({
          namespace,
          name,
          body: { ...body, metadata: { ...body.metadata, resourceVersion: current?.resourceVersion } },
        });
      } catch (replaceError) {
        // The Secret's name only: never its content.
        throw failed(replaceError, 'update', `secrets/${name}`, namespace);
      }
    }
  }

  async function replaceRepo(raw: z.infer<typeof RawRepoSchema>, change: (object: Record<string, unknown>) => void) {
    const name = raw.metadata.name;
    try {
      const current = (await objects.getClusterCustomObject({ ...params('backuprepos'), name })) as Record<
        string,
        unknown
      >;
      change(current);
      await objects.replaceClusterCustomObject({ ...params('backuprepos'), name, body: current });
    } catch (error) {
      throw failed(error, 'update', `backuprepos/${name}`);
    }
  }

  /** Only one repository is the default: the others lose the mark. */
  async function onlyDefault(name: string): Promise<void> {
    for (const repo of await listRepos())
      if (repo.name !== name && repo.isDefault) {
        const raw = await readRepo(repo.name);
        if (raw)
          await replaceRepo(raw, (object) => {
            const metadata = object.metadata as { annotations?: Record<string, string> };
            if (metadata.annotations) delete metadata.annotations[DEFAULT_REPO_ANNOTATION];
          });
      }
  }

  return {
    listRepositories: listRepos,
    async getRepository(name) {
      const raw = await readRepo(name);
      return raw && toRepositoryRecord(raw);
    },
    async createRepository(repository: NewRepository) {
      const hasCredentials = repository.credentials && Object.keys(repository.credentials).length > 0;
      const body = {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'BackupRepo',
        metadata: {
          name: repository.name,
          annotations: {
            [REPO_TYPE_ANNOTATION]: repository.type,
            ...(repository.isDefault ? { [DEFAULT_REPO_ANNOTATION]: 'true' } : {}),
          },
        },
        spec: {
          storageProviderRef: repository.storageProviderRef,
          pvReclaimPolicy: 'Retain',
          config: repository.config,
          ...(hasCredentials
            ? { credential: { name: repoSecretName(repository.name), namespace: secretNamespace } }
            : {}),
        },
      };
      // Before the BackupRepo: a Secret of that name that is not ours refuses the whole create (nothing written).
      if (hasCredentials) await credentialsSecretOf(repository.name);
      let reply: unknown;
      try {
        reply = await objects.createClusterCustomObject({ ...params('backuprepos'), body });
      } catch (error) {
        // A create of a cluster-scoped object finds no collection only when the API server does not serve the type.
        if (isNotFound(error))
          throw new PortError(
            'rejected',
            'The Kubernetes API serves no BackupRepos: install the KubeBlocks data-protection CRDs to manage backup repositories',
            { cause: error },
          );
        throw failed(error, 'create', 'backuprepos');
      }
      const parsed = RawRepoSchema.safeParse(reply);
      if (!parsed.success) throw new PortError('unavailable', 'the API server answered an unreadable BackupRepo');
      if (hasCredentials)
        await writeCredentials({ name: repository.name, uid: parsed.data.metadata.uid }, repository.credentials!);
      if (repository.isDefault) await onlyDefault(repository.name);
      return toRepositoryRecord(parsed.data);
    },
    async updateRepository(name, change: RepositoryChange) {
      const raw = await readRepo(name);
      if (!raw) throw new PortError('not-found', `Backup repository ${name} not found`);
      if (change.credentials && Object.keys(change.credentials).length > 0) {
        await credentialsSecretOf(name);
        await writeCredentials({ name, uid: raw.metadata.uid }, change.credentials);
      }
      await replaceRepo(raw, (object) => {
        const metadata = object.metadata as { annotations?: Record<string, string> };
        const spec = object.spec as Record<string, unknown>;
        if (change.config) spec.config = { ...(spec.config as Record<string, string>), ...change.config };
        if (change.credentials && Object.keys(change.credentials).length > 0)
          spec.credential = { name: repoSecretName(name), namespace: secretNamespace };
        if (change.isDefault !== undefined) {
          metadata.annotations = { ...(metadata.annotations ?? {}) };
          if (change.isDefault) metadata.annotations[DEFAULT_REPO_ANNOTATION] = 'true';
          else delete metadata.annotations[DEFAULT_REPO_ANNOTATION];
        }
      });
      if (change.isDefault) await onlyDefault(name);
      const updated = await readRepo(name);
      if (!updated) throw new PortError('not-found', `Backup repository ${name} not found`);
      return toRepositoryRecord(updated);
    },
    async repositoryUsers(name) {
      try {
        // Policies live in every namespace: one list across them (repositories are managed only with the
        // multi-cluster ClusterRole, which may list them).
        const reply = (await objects.listClusterCustomObject({ ...params('backuppolicies'), limit: LIST_LIMIT })) as {
          items?: unknown[];
        };
        return (reply.items ?? [])
          .map((item) => RawPolicySchema.safeParse(item))
          .filter((parsed) => parsed.success && parsed.data.spec.backupRepoName === name)
          .map((parsed) => `${parsed.data!.metadata.namespace ?? ''}/${parsed.data!.metadata.name}`)
          .sort();
      } catch (error) {
        if (isNotFound(error)) return [];
        throw failed(error, 'list', 'backuppolicies');
      }
    },

    async deleteRepository(name) {
      try {
        await objects.deleteClusterCustomObject({ ...params('backuprepos'), name });
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw failed(error, 'delete', `backuprepos/${name}`);
      }
    },
  };
}
