// Cluster manifests as YAML (the `yaml` package): parsed with alias and size limits, checked for what every raw
// Cluster manifest needs before it goes to the API server, which validates the rest against the CRD.
import { parseDocument, stringify } from 'yaml';
import type { ClusterObject } from '../../platform/clusters/cluster-port.js';
import { BadRequestError } from '../../http/http-errors.js';
import { KUBERNETES_NAME } from '../../lib/kubernetes-names.js';

const FALKORDB_LABEL = 'clusterdefinition.kubeblocks.io/name';

/** The manifest's namespace when it can be read at all (the permission check runs before validation). */
export function manifestNamespaceOf(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value = parseManifestValue(text) as { metadata?: { namespace?: unknown } } | null;
    const namespace = value?.metadata?.namespace;
    return typeof namespace === 'string' && namespace !== '' ? namespace : undefined;
  } catch {
    return undefined;
  }
}

function parseManifestValue(text: string): unknown {
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) throw new BadRequestError(`Invalid YAML: ${document.errors[0]!.message}`);
  return document.toJS({ maxAliasCount: 20 });
}

/** A FalkorDB Cluster manifest: an object with apiVersion apps.kubeblocks.io/…, kind Cluster, name and namespace. */
export function parseClusterManifest(text: string): ClusterObject {
  let value: unknown;
  try {
    value = parseManifestValue(text);
  } catch (error) {
    if (error instanceof BadRequestError) throw error;
    throw new BadRequestError(`Invalid YAML: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new BadRequestError('The manifest must be one YAML mapping (a Cluster object)');
  const object = value as Record<string, unknown>;
  if (typeof object.apiVersion !== 'string' || !object.apiVersion.startsWith('apps.kubeblocks.io/'))
    throw new BadRequestError('apiVersion must be apps.kubeblocks.io/v1 (a KubeBlocks Cluster)');
  if (object.kind !== 'Cluster') throw new BadRequestError('kind must be Cluster');
  const metadata = object.metadata as Record<string, unknown> | undefined;
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata))
    throw new BadRequestError('metadata.name and metadata.namespace are required');
  const { name, namespace } = metadata;
  if (typeof name !== 'string' || !KUBERNETES_NAME.test(name))
    throw new BadRequestError('metadata.name is required, a Kubernetes name');
  if (typeof namespace !== 'string' || !KUBERNETES_NAME.test(namespace))
    throw new BadRequestError('metadata.namespace is required, a Kubernetes namespace name');
  const spec = object.spec as Record<string, unknown> | undefined;
  const definition = spec?.clusterDef ?? spec?.clusterDefinitionRef;
  if (definition !== undefined && definition !== 'falkordb')
    throw new BadRequestError(`Only FalkorDB clusters are managed here (clusterDef ${JSON.stringify(definition)})`);
  const labels = (metadata.labels ?? {}) as Record<string, unknown>;
  if (typeof labels !== 'object' || Array.isArray(labels)) throw new BadRequestError('metadata.labels must be a map');
  // The label the server lists FalkorDB clusters by.
  return {
    ...object,
    apiVersion: object.apiVersion,
    kind: 'Cluster',
    metadata: { ...metadata, name, namespace, labels: { ...labels, [FALKORDB_LABEL]: 'falkordb' } },
  };
}

export const yamlOf = (object: unknown): string => stringify(object);
