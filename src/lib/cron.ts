// Five-field cron expressions (minute hour day-of-month month day-of-week), as Kubernetes CronJobs and KubeBlocks
// BackupSchedules take them, in UTC: parsed once, then asked for the next minute that matches. Pure. Written here
// rather than taken from npm because the JavaScript libraries read some expressions otherwise than the Go parser
// Kubernetes runs them with (docs/decisions/cron-expressions.md).

export interface CronExpression {
  text: string;
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /**
   * Both day fields restricted: a day matching either one fires; otherwise a day must match both. As the Go parser
   * Kubernetes uses decides it, a field is unrestricted when one of its comma-separated parts is `*` or `?` without
   * a step above 1 (`*` every second day is a restriction; `*` every day, and `*,15`, are not).
   */
  eitherDay: boolean;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

function valueOf(text: string, names: string[] | undefined, offset: number, what: string): number {
  const named = names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + offset;
  if (!/^\d+$/.test(text)) throw new Error(`${what}: "${text}" is not a number`);
  return Number(text);
}

function field(text: string, min: number, max: number, what: string, names?: string[], offset = 0): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/');
    if (range === undefined || range === '' || part.split('/').length > 2)
      throw new Error(`${what}: "${part}" is not a value, range or step`);
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new Error(`${what}: step "${stepText}" must be a positive number`);
    let low: number;
    let high: number;
    // `?` is `*` (accepted in any field, as the Go parser does).
    if (range === '*' || range === '?') [low, high] = [min, max];
    else {
      const bounds = range.split('-');
      if (bounds.length > 2) throw new Error(`${what}: "${range}" is not a range`);
      low = valueOf(bounds[0]!, names, offset, what);
      high = bounds.length === 2 ? valueOf(bounds[1]!, names, offset, what) : stepText === undefined ? low : max;
    }
    if (low < min || high > max || low > high)
      throw new Error(`${what}: "${range}" is outside ${min}-${max} or inverted`);
    for (let value = low; value <= high; value += step) values.add(value);
  }
  return values;
}

/** Sunday may be written 7. */
function sundayAsZero(values: Set<number>): Set<number> {
  if (values.delete(7)) values.add(0);
  return values;
}

const unrestricted = (text: string) =>
  text.split(',').some((part) => {
    const [range, step] = part.split('/');
    return (range === '*' || range === '?') && (step === undefined || Number(step) <= 1);
  });

/** Parses an expression; throws an Error saying what is wrong. */
export function parseCron(expression: string): CronExpression {
  const text = expression.trim();
  const fields = (MACROS[text.toLowerCase()] ?? text).split(/\s+/);
  if (fields.length !== 5)
    throw new Error(`a cron expression has 5 fields (minute hour day month weekday); got ${fields.length}`);
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  return {
    text,
    minutes: field(minute, 0, 59, 'minute'),
    hours: field(hour, 0, 23, 'hour'),
    days: field(day, 1, 31, 'day of month'),
    months: field(month, 1, 12, 'month', MONTHS, 1),
    weekdays: sundayAsZero(field(weekday, 0, 7, 'day of week', WEEKDAYS)),
    eitherDay: !unrestricted(day) && !unrestricted(weekday),
  };
}

/** The problem with an expression, or undefined when it parses. */
export function cronProblem(expression: string): string | undefined {
  try {
    parseCron(expression);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function dayMatches(cron: CronExpression, date: Date): boolean {
  const day = cron.days.has(date.getUTCDate());
  const weekday = cron.weekdays.has(date.getUTCDay());
  return cron.eitherDay ? day || weekday : day && weekday;
}

/** The first minute strictly after `after` (ms) that matches, in ms; undefined when none comes within 5 years. */
export function nextRun(cron: CronExpression, after: number): number | undefined {
  const date = new Date(Math.floor(after / 60_000) * 60_000 + 60_000);
  const limit = after + 5 * 366 * 86_400_000;
  while (date.getTime() <= limit) {
    if (!cron.months.has(date.getUTCMonth() + 1)) {
      date.setUTCMonth(date.getUTCMonth() + 1, 1);
      date.setUTCHours(0, 0, 0, 0);
    } else if (!dayMatches(cron, date)) {
      date.setUTCDate(date.getUTCDate() + 1);
      date.setUTCHours(0, 0, 0, 0);
    } else if (!cron.hours.has(date.getUTCHours())) {
      date.setUTCHours(date.getUTCHours() + 1, 0, 0, 0);
    } else if (!cron.minutes.has(date.getUTCMinutes())) {
      date.setUTCMinutes(date.getUTCMinutes() + 1, 0, 0);
    } else return date.getTime();
  }
  return undefined;
}

const UNIT_MS: Record<string, number> = {
  y: 365 * 86_400_000,
  mo: 30 * 86_400_000,
  w: 7 * 86_400_000,
  d: 86_400_000,
  h: 3_600_000,
  m: 60_000,
};
const RETENTION = /^(?:\d+(?:y|mo|w|d|h|m))+$/;

/** A retention period (`30d`, `1y`, `12h30m`; KubeBlocks' units y, mo, d, h, m, and w) in ms; undefined when not one. */
export function retentionMs(text: string): number | undefined {
  if (!RETENTION.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(y|mo|w|d|h|m)/g)) total += Number(amount) * UNIT_MS[unit!]!;
  return total > 0 ? total : undefined;
}
