// The support package: one zip of what a support engineer needs and nothing secret. Settings come through the same
// schema as GET /api/settings/ (write-only values are never in it); logs come from the in-memory ring (censored by
// the logger); deployments are summaries (names, namespaces, phases, sizes). As a last guard, every file is scanned
// for the secret values the server knows (its own secrets, the initial admin password, the settings' write-only
// values) and for service account tokens (by their prefix), and each occurrence is replaced. The package is
// bounded: log lines, audit entries, total size.
import type { Registry } from 'prom-client';
import type { ClusterRecord } from '../../platform/clusters/cluster-records.js';
import type { LogRing } from '../../logging/log-ring.js';
import type { ClusterService } from '../clusters/cluster-service.js';
import type { RoleName } from '../permissions/permissions.js';
import { SettingsSchema, WRITE_ONLY_FIELDS } from '../settings/schemas.js';
import type { SettingsService } from '../settings/settings-service.js';
import type { DiagnosticsService } from './diagnostics-service.js';
import { DEFAULT_LOG_LINES, type SupportPackageBody } from './schemas.js';
import { writeZip, type ZipEntry } from './zip-writer.js';
import { redactTokenTexts } from '../../logging/logging.js';

/** Uncompressed bytes of every file together; the log is cut (oldest lines first) to stay within. */
export const MAX_PACKAGE_BYTES = 16 * 1024 * 1024;
const DEFAULT_AUDIT_ENTRIES = 100;
const REDACTED = '[Redacted]';
/** Shorter values would match ordinary text; every secret the server accepts is longer. */
const MIN_SCRUBBED_LENGTH = 8;

export interface SupportPackageDeps {
  diagnostics: DiagnosticsService;
  settings: SettingsService;
  clusters: ClusterService;
  recentLogs?: LogRing;
  metricsRegistry?: Registry;
  /** The latest audit entries, when the server keeps an audit log. */
  auditTail?: (limit: number) => Promise<unknown[]>;
  /** Secret values from the configuration (session, token and encryption secrets, the initial admin password). */
  configSecrets: readonly (string | undefined)[];
  version: string;
  now: () => number;
}

/** `text` with each of `secrets`, and every service account token (found by its prefix), replaced; pure. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let result = redactTokenTexts(text);
  for (const secret of secrets) {
    if (secret.length < MIN_SCRUBBED_LENGTH) continue;
    result = result.split(secret).join(REDACTED);
    // The same value as JSON would escape it (quotes, backslashes, newlines of a PEM key).
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) result = result.split(escaped).join(REDACTED);
  }
  return result;
}

function summary(cluster: ClusterRecord) {
  return {
    name: cluster.name,
    namespace: cluster.namespace,
    phase: cluster.phase,
    topology: cluster.topology,
    createdAt: cluster.createdAt,
    components: cluster.components.map((component) => ({
      name: component.name,
      kind: component.kind,
      phase: component.phase,
      replicas: component.replicas,
      ...(component.shards === undefined ? {} : { shards: component.shards }),
      version: component.serviceVersion,
      cpu: component.cpu,
      memory: component.memory,
      storage: component.storage,
    })),
  };
}

export function createSupportPackages(deps: SupportPackageDeps) {
  /** The write-only values saved through the settings, read only to be scrubbed. */
  async function settingsSecrets(): Promise<string[]> {
    const settings = await deps.settings.current();
    const values = await Promise.all(
      WRITE_ONLY_FIELDS.map(({ section, ref, dataKey }) => {
        const secretName = (settings[section] as Record<string, string>)[ref];
        if (!secretName) return Promise.resolve(undefined);
        return deps.settings.secretValue(secretName, dataKey).catch(() => undefined);
      }),
    );
    return values.filter((value): value is string => typeof value === 'string');
  }

  return {
    async build(role: RoleName, body: SupportPackageBody): Promise<{ filename: string; zip: Buffer }> {
      const at = new Date(deps.now());
      const notes: string[] = [];
      const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

      const [diagnostics, settings, deployments] = await Promise.all([
        deps.diagnostics.diagnostics(role),
        deps.settings.current(),
        deps.clusters.listVisible(role, undefined).catch((error: unknown) => {
          notes.push(`Deployments could not be listed: ${error instanceof Error ? error.message : String(error)}`);
          return [] as ClusterRecord[];
        }),
      ]);
      const asked = body.clusters ?? [];
      const chosen =
        asked.length === 0
          ? deployments
          : deployments.filter((d) => asked.some((a) => a.name === d.name && a.namespace === d.namespace));
      for (const a of asked)
        if (!chosen.some((d) => d.name === a.name && d.namespace === a.namespace))
          notes.push(`Deployment ${a.namespace}/${a.name} was not found or is not visible to the requester`);

      const files: ZipEntry[] = [
        { name: 'diagnostics.json', data: json(diagnostics) },
        { name: 'settings.json', data: json(SettingsSchema.encode(settings)) },
        { name: 'clusters.json', data: json({ clusters: chosen.map(summary), total: chosen.length }) },
      ];
      if (body.includeMetrics ?? true) {
        if (deps.metricsRegistry) files.push({ name: 'metrics.txt', data: await deps.metricsRegistry.metrics() });
        else notes.push('Metrics: no registry in this process');
      }
      const auditLimit = body.auditLimit ?? DEFAULT_AUDIT_ENTRIES;
      if (auditLimit > 0) {
        if (deps.auditTail) files.push({ name: 'audit.json', data: json(await deps.auditTail(auditLimit)) });
        else notes.push('Audit: this server keeps no audit log to include');
      }

      const secrets = [
        ...deps.configSecrets.filter((value): value is string => typeof value === 'string'),
        ...(await settingsSecrets()),
      ];
      const scrub = (entry: ZipEntry): ZipEntry => ({
        name: entry.name,
        data: scrubSecrets(String(entry.data), secrets),
      });
      const scrubbed = files.map(scrub);

      const manifest = (logLines: number) => ({
        generatedAt: at.toISOString(),
        server: { name: 'graphdb-server', version: deps.version },
        request: {
          issueDescription: body.issueDescription ?? '',
          ...(body.contactEmail ? { contactEmail: body.contactEmail } : {}),
          clusters: asked,
          includeLogs: body.includeLogs ?? true,
          includeMetrics: body.includeMetrics ?? true,
          logTailLines: logLines,
          auditLimit,
        },
        files: ['manifest.json', ...scrubbed.map((file) => file.name)],
        notes,
      });

      if (body.includeLogs ?? true) {
        if (!deps.recentLogs) notes.push('Logs: this process keeps no log lines in memory');
        else {
          const wanted = deps.recentLogs.tail(body.logTailLines ?? DEFAULT_LOG_LINES);
          let budget =
            MAX_PACKAGE_BYTES -
            scrubbed.reduce((sum, file) => sum + Buffer.byteLength(String(file.data)), 0) -
            Buffer.byteLength(json(manifest(wanted.length)));
          const kept: string[] = [];
          for (let index = wanted.length - 1; index >= 0; index -= 1) {
            const line = scrubSecrets(wanted[index]!, secrets);
            budget -= Buffer.byteLength(line) + 1;
            if (budget < 0) {
              notes.push(`Logs: cut to the last ${kept.length} lines to keep the package within its size limit`);
              break;
            }
            kept.push(line);
          }
          kept.reverse();
          scrubbed.push({ name: 'logs/server.log', data: kept.length > 0 ? `${kept.join('\n')}\n` : '' });
          return finish(kept.length);
        }
      }
      return finish(0);

      function finish(logLines: number) {
        const entries = [scrub({ name: 'manifest.json', data: json(manifest(logLines)) }), ...scrubbed];
        return {
          filename: `graphdb-support-${at.toISOString().replace(/[:.]/g, '-')}.zip`,
          zip: writeZip(entries, at),
        };
      }
    },
  };
}

export type SupportPackages = ReturnType<typeof createSupportPackages>;
