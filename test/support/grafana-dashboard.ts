// The parts of Grafana's dashboard model (schemaVersion 39, the JSON a dashboard's "Export" gives and its sidecar
// imports) that the chart's dashboard uses, as a strict-enough zod schema: what Grafana needs to import it and draw
// every panel from Prometheus. Grafana publishes its model as CUE and TypeScript types only, not as a JSON Schema.
import { z } from 'zod';

const Datasource = z.object({ type: z.literal('prometheus'), uid: z.literal('${datasource}') });

const Target = z.object({
  refId: z.string().regex(/^[A-Z]$/),
  datasource: Datasource,
  expr: z.string().min(1),
  legendFormat: z.string(),
});

const Panel = z.object({
  id: z.number().int().positive(),
  type: z.enum(['timeseries', 'stat', 'gauge', 'table', 'bargauge']),
  title: z.string().min(1),
  datasource: Datasource,
  gridPos: z.object({
    h: z.number().int().positive(),
    w: z.number().int().min(1).max(24),
    x: z.number().int().min(0).max(23),
    y: z.number().int().min(0),
  }),
  fieldConfig: z.object({ defaults: z.object({ unit: z.string() }).passthrough(), overrides: z.array(z.unknown()) }),
  options: z.record(z.string(), z.unknown()),
  targets: z.array(Target).min(1),
});

const Variable = z.object({
  name: z.string().regex(/^\w+$/),
  type: z.enum(['datasource', 'query', 'custom', 'constant']),
  hide: z.number().int().min(0).max(2),
});

export const GrafanaDashboard = z
  .object({
    title: z.string().min(1),
    uid: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/),
    schemaVersion: z.number().int().min(36),
    version: z.number().int(),
    time: z.object({ from: z.string(), to: z.string() }),
    refresh: z.string(),
    tags: z.array(z.string()),
    editable: z.boolean(),
    annotations: z.object({ list: z.array(z.unknown()) }),
    templating: z.object({ list: z.array(Variable) }),
    panels: z.array(Panel).min(1),
  })
  .superRefine((dashboard, context) => {
    const ids = dashboard.panels.map((panel) => panel.id);
    if (new Set(ids).size !== ids.length) context.addIssue({ code: 'custom', message: 'panel ids must be unique' });
    for (const panel of dashboard.panels)
      if (panel.gridPos.x + panel.gridPos.w > 24)
        context.addIssue({ code: 'custom', message: `panel ${panel.title} overflows the 24-column grid` });
    const variables = new Set(dashboard.templating.list.map((variable) => variable.name));
    for (const panel of dashboard.panels)
      for (const target of panel.targets)
        for (const [, name] of target.expr.matchAll(/\$(\w+)/g))
          if (!name!.startsWith('__') && !variables.has(name!))
            context.addIssue({ code: 'custom', message: `panel ${panel.title} uses undefined variable $${name}` });
  });

/** The metric names a PromQL expression selects (every `name{` or bare `name[`), without label names or functions. */
export function selectedMetrics(expr: string): string[] {
  return [...expr.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?=\{|\[)/g)]
    .map((match) => match[1]!)
    .filter((name) => !['by', 'without', 'on', 'ignoring', 'group_left', 'group_right'].includes(name));
}
