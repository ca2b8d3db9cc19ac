// The Prometheus text exposition format (what a pod's redis_exporter serves at /metrics) as the PromMetricFamilies
// the pod metrics route answers. Only the database's own families are kept, within fixed bounds.
import type { MetricFamily } from './telemetry-math.js';

export interface ExpositionLimits {
  /** Families whose name starts with one of these are kept (the exporter also serves its own Go runtime's). */
  prefixes: readonly string[];
  maxFamilies: number;
  maxSamples: number;
}

export const EXPORTER_LIMITS: ExpositionLimits = {
  prefixes: ['redis_', 'falkordb_'],
  maxFamilies: 500,
  maxSamples: 5000,
};

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?\s*$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/y;
/** Sample-name suffixes that belong to the histogram or summary family of the base name. */
const SERIES_SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created'];

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_match, char: string) => (char === 'n' ? '\n' : char));
}

/** `{a="1",b="x\"y"}`'s inside as a record; undefined when it does not parse. */
export function parseLabels(text: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const start = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (!match) return text.slice(start).trim() === '' ? labels : undefined;
    labels[match[1]!] = unescape(match[2]!);
  }
  return labels;
}

/**
 * One family per sample name, in the order names first appear; HELP and TYPE from their lines (a histogram's
 * `_bucket`, `_sum` and `_count` series take the base family's type). Samples whose value JSON cannot carry (NaN,
 * ±Inf) or whose line does not parse are skipped; `extraLabels` are added to every sample.
 */
export function parseExposition(
  text: string,
  limits: ExpositionLimits,
  extraLabels: Record<string, string> = {},
): MetricFamily[] {
  const help = new Map<string, string>();
  const types = new Map<string, string>();
  const families = new Map<string, MetricFamily>();
  let samples = 0;
  const kept = (name: string) => limits.prefixes.some((prefix) => name.startsWith(prefix));
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const meta = /^#\s+(HELP|TYPE)\s+(\S+)\s*(.*)$/.exec(line);
      if (meta) (meta[1] === 'HELP' ? help : types).set(meta[2]!, meta[1] === 'HELP' ? unescape(meta[3]!) : meta[3]!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const [, name, , labelText, valueText, timestampText] = match;
    if (!kept(name!)) continue;
    const value = Number(valueText);
    if (!Number.isFinite(value)) continue;
    const labels = labelText === undefined ? {} : parseLabels(labelText);
    if (!labels) continue;
    let family = families.get(name!);
    if (!family) {
      if (families.size >= limits.maxFamilies) continue;
      const base = SERIES_SUFFIXES.find(
        (suffix) => name!.endsWith(suffix) && types.has(name!.slice(0, -suffix.length)),
      );
      const baseName = base ? name!.slice(0, -base.length) : name!;
      const type = types.get(name!) ?? types.get(baseName);
      const description = help.get(name!) ?? help.get(baseName);
      family = { name: name!, ...(description ? { help: description } : {}), ...(type ? { type } : {}), samples: [] };
      families.set(name!, family);
    }
    if (samples >= limits.maxSamples) break;
    samples += 1;
    family.samples.push({
      labels: { ...labels, ...extraLabels },
      value,
      ...(timestampText !== undefined ? { timestamp: Number(timestampText) } : {}),
    });
  }
  return [...families.values()];
}
