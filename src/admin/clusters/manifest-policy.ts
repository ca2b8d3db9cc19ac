// What a caller may put into a Cluster object (docs/decisions/deployment-manifests.md): the fields the API documents,
// FalkorDB component definitions only, and no metadata that steers KubeBlocks or Kubernetes itself (kubeblocks.io/*
// annotations such as restore-from-backup, owner references, finalizers). A manifest is rebuilt from a strict schema,
// so a field nobody reviewed cannot reach the API server; labels and annotations of the structured create and PATCH
// pass the same key check.
import { z } from 'zod';
import { INSTANCE_LABEL, MANAGED_BY_LABEL } from '../../lib/kubernetes-labels.js';
import { KUBERNETES_NAME } from '../../lib/kubernetes-names.js';
import type { ClusterObject } from '../../platform/clusters/cluster-port.js';
import { BadRequestError } from '../../http/http-errors.js';

/** The label the server lists FalkorDB clusters by; the server sets it itself. */
export const FALKORDB_LABEL = 'clusterdefinition.kubeblocks.io/name';

/** Label keys Kubernetes tooling and KubeBlocks select pods and objects by. */
const RESERVED_LABELS = new Set([INSTANCE_LABEL, MANAGED_BY_LABEL]);

/** Whether a label or annotation key belongs to KubeBlocks, to this server or to pod selection: never a caller's. */
export function isReservedKey(key: string, kind: 'label' | 'annotation'): boolean {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? '' : key.slice(0, slash).toLowerCase();
  if (prefix === 'kubeblocks.io' || prefix.endsWith('.kubeblocks.io')) return true;
  if (prefix === 'graphdb.falkordb.com' || prefix.endsWith('.graphdb.falkordb.com')) return true;
  return kind === 'label' && RESERVED_LABELS.has(key.toLowerCase());
}

/** 400 naming the first reserved key of a caller's labels or annotations. */
export function assertCallerMetadata(
  labels: Record<string, string> | undefined,
  annotations: Record<string, string> | undefined,
): void {
  for (const [map, kind] of [
    [labels, 'label'],
    [annotations, 'annotation'],
  ] as const)
    for (const key of Object.keys(map ?? {}))
      if (isReservedKey(key, kind))
        throw new BadRequestError(
          `The ${kind} ${key} is reserved (kubeblocks.io/*, graphdb.falkordb.com/* and pod-selection labels are set only by the platform)`,
        );
}

const Name = z.string().regex(KUBERNETES_NAME, 'must be a Kubernetes name');
const StringMap = z.record(z.string().max(317), z.string().max(4096));
/** A FalkorDB addon component definition (KubeBlocks matches a name prefix or regular expression). */
const FalkorDbDefinition = z
  .string()
  .max(64)
  .regex(/^\^?falkordb[-a-z0-9.]*\$?$/, 'must be a FalkorDB component definition (falkordb…)');
const Quantity = z.union([z.string().max(32), z.number()]);
const Amounts = z.strictObject({ cpu: Quantity.optional(), memory: Quantity.optional() });
const Resources = z.strictObject({ requests: Amounts.optional(), limits: Amounts.optional() });
const Scheduling = z.strictObject({
  nodeSelector: StringMap.optional(),
  tolerations: z
    .array(
      z.strictObject({
        key: z.string().max(317).optional(),
        operator: z.enum(['Equal', 'Exists']).optional(),
        value: z.string().max(63).optional(),
        effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
        tolerationSeconds: z.int().optional(),
      }),
    )
    .max(50)
    .optional(),
  affinity: z.record(z.string(), z.unknown()).optional(),
});
const VolumeClaim = z.strictObject({
  name: Name,
  spec: z.strictObject({
    accessModes: z.array(z.enum(['ReadWriteOnce', 'ReadWriteMany', 'ReadOnlyMany', 'ReadWriteOncePod'])).optional(),
    storageClassName: z.string().max(253).optional(),
    volumeMode: z.enum(['Filesystem', 'Block']).optional(),
    resources: z
      .strictObject({
        requests: z.record(z.string(), Quantity).optional(),
        limits: z.record(z.string(), Quantity).optional(),
      })
      .optional(),
  }),
});
const Service = z.strictObject({
  name: z.string().min(1).max(25),
  serviceType: z.enum(['ClusterIP', 'NodePort', 'LoadBalancer']).optional(),
  annotations: StringMap.optional(),
  podService: z.boolean().optional(),
});
const Component = z.strictObject({
  name: Name,
  componentDef: FalkorDbDefinition.optional(),
  componentDefRef: FalkorDbDefinition.optional(),
  serviceVersion: z.string().max(63).optional(),
  replicas: z.int().min(0).max(100).optional(),
  resources: Resources.optional(),
  volumeClaimTemplates: z.array(VolumeClaim).max(8).optional(),
  services: z.array(Service).max(8).optional(),
  disableExporter: z.boolean().optional(),
  stop: z.boolean().optional(),
  schedulingPolicy: Scheduling.optional(),
});
const Sharding = z.strictObject({ name: Name, shards: z.int().min(0).max(100), template: Component });
const Spec = z.strictObject({
  clusterDef: z.literal('falkordb').optional(),
  clusterDefinitionRef: z.literal('falkordb').optional(),
  clusterVersionRef: z.string().max(63).optional(),
  topology: z.string().max(63).optional(),
  terminationPolicy: z.enum(['DoNotTerminate', 'Halt', 'Delete', 'WipeOut']).optional(),
  schedulingPolicy: Scheduling.optional(),
  componentSpecs: z.array(Component).max(10).optional(),
  shardings: z.array(Sharding).max(4).optional(),
  shardingSpecs: z.array(Sharding).max(4).optional(),
});
/** What the API server fills in and GET …/yaml shows: accepted and left to the API server. */
const SERVER_FIELDS = ['uid', 'creationTimestamp', 'generation', 'managedFields', 'selfLink'] as const;
const Metadata = z.strictObject({
  name: z.string(),
  namespace: z.string(),
  labels: StringMap.optional(),
  annotations: StringMap.optional(),
  resourceVersion: z.string().optional(),
  ...Object.fromEntries(SERVER_FIELDS.map((field) => [field, z.unknown().optional()])),
  // Only as stored (a replace sends back what GET …/yaml answered): compared with the stored object.
  finalizers: z.array(z.string()).optional(),
  ownerReferences: z.array(z.unknown()).optional(),
});
const Manifest = z.strictObject({
  apiVersion: z.string(),
  kind: z.literal('Cluster'),
  metadata: Metadata,
  spec: Spec,
  status: z.unknown().optional(),
});

const pathOf = (issue: z.core.$ZodIssue) => issue.path.map(String).join('.');

function reservedOf(map: Record<string, string> | undefined, kind: 'label' | 'annotation') {
  return Object.fromEntries(Object.entries(map ?? {}).filter(([key]) => isReservedKey(key, kind)));
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The Cluster object a caller's manifest may become: rebuilt from the strict schema (400 naming the first field
 * that is not accepted). For a create, no reserved label or annotation, finalizer or owner reference; for a replace
 * (`stored` given), the stored object's reserved metadata is kept, and the caller may only leave it out or send it back
 * unchanged.
 */
export function allowedManifest(value: Record<string, unknown>, stored?: Record<string, unknown>): ClusterObject {
  const parsed = Manifest.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = pathOf(issue);
    throw new BadRequestError(
      issue.code === 'unrecognized_keys'
        ? `The manifest field ${[where, issue.keys[0]].filter(Boolean).join('.')} is not accepted: only the fields the API documents reach KubeBlocks`
        : `The manifest field ${where} ${issue.message}`,
    );
  }
  const { metadata, spec } = parsed.data;
  const labels = { ...metadata.labels };
  delete labels[FALKORDB_LABEL];
  const annotations = { ...metadata.annotations };
  const storedMetadata = (stored?.metadata ?? {}) as {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: unknown[];
  };
  if (!stored) {
    assertCallerMetadata(labels, annotations);
    if (metadata.finalizers?.length) throw new BadRequestError('metadata.finalizers are set only by the platform');
    if (metadata.ownerReferences?.length)
      throw new BadRequestError('metadata.ownerReferences are set only by the platform');
  } else {
    const keptLabels = reservedOf(storedMetadata.labels, 'label');
    delete keptLabels[FALKORDB_LABEL];
    const keptAnnotations = reservedOf(storedMetadata.annotations, 'annotation');
    // Left out: kept as stored. Sent: only as stored.
    const changes = (sent: Record<string, string>, kept: Record<string, string>) =>
      Object.entries(sent).some(([key, value]) => kept[key] !== value);
    if (
      changes(reservedOf(labels, 'label'), keptLabels) ||
      changes(reservedOf(annotations, 'annotation'), keptAnnotations)
    )
      throw new BadRequestError(
        'Reserved labels and annotations (kubeblocks.io/*, graphdb.falkordb.com/*, pod selection) cannot be changed',
      );
    Object.assign(labels, keptLabels);
    Object.assign(annotations, keptAnnotations);
    for (const field of ['finalizers', 'ownerReferences'] as const)
      if (metadata[field] !== undefined && !sameJson(metadata[field], storedMetadata[field]))
        throw new BadRequestError(`metadata.${field} are set only by the platform`);
  }
  return {
    apiVersion: parsed.data.apiVersion,
    kind: 'Cluster',
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace,
      labels: { ...labels, [FALKORDB_LABEL]: 'falkordb' },
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(stored && metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}),
      ...(stored && storedMetadata.finalizers ? { finalizers: storedMetadata.finalizers } : {}),
      ...(stored && storedMetadata.ownerReferences ? { ownerReferences: storedMetadata.ownerReferences } : {}),
    },
    spec,
  };
}
