// The rules check scripts/check-chart-rules.sh runs when promtool is not at hand: a Prometheus rules file's structure
// as promtool reads it (groups with unique names, each rule an alert or a record with the fields and key names it
// allows, durations and label names valid) and every expression parsed by Prometheus' own PromQL grammar
// (@prometheus-io/lezer-promql, the parser of Prometheus' web UI). Syntax only: it does not type-check an expression
// (a function given the wrong kind of vector) as promtool does. Prints each problem and exits 1 when there is one.
// Usage: node scripts/check-rules-structure.mjs <rules.yaml>
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parser } from '@prometheus-io/lezer-promql';
import { parse } from 'yaml';

const DURATION = /^(?:\d+y)?(?:\d+w)?(?:\d+d)?(?:\d+h)?(?:\d+m)?(?:\d+s)?(?:\d+ms)?$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const GROUP_KEYS = new Set(['name', 'interval', 'limit', 'rules', 'query_offset', 'labels']);
const ALERT_KEYS = new Set(['alert', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations']);
const RECORD_KEYS = new Set(['record', 'expr', 'labels']);

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const duration = (value) => typeof value === 'string' && value !== '' && DURATION.test(value);

/** Where the PromQL grammar fails to read `expr` (an offset), or -1 when it reads all of it. */
export function promqlErrorAt(expr) {
  let at = -1;
  parser.parse(expr).iterate({
    enter(node) {
      if (at === -1 && node.type.isError) at = node.from;
      return at === -1;
    },
  });
  return at;
}

/** Every problem of a parsed rules file, as `where: what` lines; [] when it is sound. */
export function rulesFileProblems(document) {
  const problems = [];
  if (!isObject(document) || !Array.isArray(document.groups)) return ['the file: needs a top-level groups list'];
  const groupNames = new Set();
  document.groups.forEach((group, g) => {
    const where = `group ${isObject(group) && typeof group.name === 'string' ? group.name : `#${g + 1}`}`;
    if (!isObject(group)) return problems.push(`${where}: is not a mapping`);
    for (const key of Object.keys(group)) if (!GROUP_KEYS.has(key)) problems.push(`${where}: unknown field ${key}`);
    if (typeof group.name !== 'string' || group.name === '') problems.push(`${where}: needs a name`);
    else if (groupNames.has(group.name)) problems.push(`${where}: the name is used by another group`);
    groupNames.add(group.name);
    if (group.interval !== undefined && !duration(group.interval))
      problems.push(`${where}: interval ${group.interval} is not a duration`);
    if (!Array.isArray(group.rules)) return problems.push(`${where}: needs a rules list`);
    group.rules.forEach((rule, r) => {
      const name = isObject(rule) ? (rule.alert ?? rule.record) : undefined;
      const at = `${where}, rule ${typeof name === 'string' ? name : `#${r + 1}`}`;
      if (!isObject(rule)) return problems.push(`${at}: is not a mapping`);
      const alert = rule.alert !== undefined;
      if (alert === (rule.record !== undefined)) problems.push(`${at}: needs exactly one of alert and record`);
      const allowed = alert ? ALERT_KEYS : RECORD_KEYS;
      for (const key of Object.keys(rule)) if (!allowed.has(key)) problems.push(`${at}: field ${key} is not allowed`);
      if (alert && (typeof rule.alert !== 'string' || rule.alert === ''))
        problems.push(`${at}: the alert name is empty`);
      if (!alert && (typeof rule.record !== 'string' || !METRIC_NAME.test(rule.record)))
        problems.push(`${at}: the record name is not a metric name`);
      if (typeof rule.expr !== 'string' || rule.expr.trim() === '') problems.push(`${at}: needs an expr`);
      else {
        const error = promqlErrorAt(rule.expr);
        if (error !== -1)
          problems.push(
            `${at}: expr does not parse as PromQL at offset ${error}: ${JSON.stringify(rule.expr.slice(Math.max(0, error - 20), error + 20))}`,
          );
      }
      for (const key of ['for', 'keep_firing_for'])
        if (rule[key] !== undefined && !duration(rule[key]))
          problems.push(`${at}: ${key} ${JSON.stringify(rule[key])} is not a duration`);
      for (const key of ['labels', 'annotations']) {
        if (rule[key] === undefined) continue;
        if (!isObject(rule[key])) {
          problems.push(`${at}: ${key} is not a mapping`);
          continue;
        }
        for (const [label, value] of Object.entries(rule[key])) {
          if (!LABEL_NAME.test(label)) problems.push(`${at}: ${key} name ${label} is not a label name`);
          if (typeof value !== 'string') problems.push(`${at}: ${key} ${label} is not a string`);
        }
      }
    });
  });
  return problems;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node scripts/check-rules-structure.mjs <rules.yaml>');
    process.exit(2);
  }
  let document;
  try {
    document = parse(await readFile(file, 'utf8'));
  } catch (error) {
    console.error(`${file}: ${error.message}`);
    process.exit(1);
  }
  const problems = rulesFileProblems(document);
  for (const problem of problems) console.error(`${file}: ${problem}`);
  if (problems.length > 0) process.exit(1);
  const rules = document.groups.reduce((sum, group) => sum + group.rules.length, 0);
  console.log(`SUCCESS: ${rules} rules found (structure and PromQL syntax)`);
}
