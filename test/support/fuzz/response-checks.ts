// The per-response invariants: no 5xx, error bodies in the owning API's shape, 2xx bodies valid against the
// declared response schema (JSON, server-sent events or bytes), and schema-violating requests refused.
import { STATUS_CODES } from 'node:http';
import { shapeOwning, type JsonSchema } from './operations.js';
import { validatorFor, violation, type FuzzRequest } from './requests.js';
import { errorCodesOf } from '../../../src/http/error-codes.js';

export interface Outcome {
  status: number;
  contentType: string;
  body: string;
}

export interface Verdict {
  problems: string[];
  /** The server refused the request: a 4xx, or a 200 event stream whose only event is an `error`. */
  rejected: boolean;
}

const ERROR_EVENT: JsonSchema = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 499 },
    code: { enum: errorCodesOf('browser') },
  },
  required: ['message', 'status', 'code'],
  additionalProperties: false,
};

/** The last event of a feed that failed once it had begun (src/admin/observability/observability-routes.ts). */
const FEED_ERROR_EVENT: JsonSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, code: { enum: errorCodesOf('admin') } },
  required: ['error', 'code'],
  additionalProperties: false,
};

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function schemaErrors(schema: JsonSchema, value: unknown): string | undefined {
  const validate = validatorFor(schema);
  if (validate(value)) return undefined;
  return (validate.errors ?? [])
    .slice(0, 3)
    .map((error) => `${error.instancePath || '(root)'} ${error.message ?? ''}`)
    .join('; ');
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

export function checkErrorBody(url: string, outcome: Outcome): string[] {
  const shape = shapeOwning(url);
  if (!outcome.contentType.startsWith('application/json'))
    return [`error response has Content-Type ${outcome.contentType || '(none)'}`];
  const parsed = parseJson(outcome.body);
  if (!parsed || !parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value))
    return [`error body is not a JSON object: ${clip(outcome.body)}`];
  const body = parsed.value as Record<string, unknown>;
  const keys = Object.keys(body).sort().join(',');
  const problems: string[] = [];
  if (!(errorCodesOf(shape) as unknown[]).includes(body.code))
    problems.push(`${shape} error body has code ${JSON.stringify(body.code)}, not one of the list in error-codes.ts`);
  if (shape === 'browser') {
    if (keys !== 'code,message' || typeof body.message !== 'string')
      return [`error body is not in the browser shape {message, code}: ${clip(outcome.body)}`];
    return problems;
  }
  if (keys !== 'code,error,message,statusCode' || typeof body.message !== 'string')
    return [`error body is not in the admin shape {statusCode, error, message, code}: ${clip(outcome.body)}`];
  if (body.statusCode !== outcome.status)
    problems.push(`admin error body says statusCode ${String(body.statusCode)} on a ${outcome.status}`);
  if (body.error !== (STATUS_CODES[outcome.status] ?? 'Error'))
    problems.push(`admin error body says error ${JSON.stringify(body.error)} on a ${outcome.status}`);
  return problems;
}

/** Events of a complete server-sent event stream (comment lines such as heartbeats are skipped). */
function parseEvents(text: string): { event: string; data: string }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() && !block.split('\n').every((line) => line.startsWith(':')))
    .map((block) => {
      const lines = block.split('\n').filter((line) => !line.startsWith(':'));
      return {
        event: lines.find((line) => line.startsWith('event: '))?.slice(7) ?? '',
        data: lines
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n'),
      };
    });
}

function checkEventStream(outcome: Outcome, resultSchema: JsonSchema | undefined): SuccessCheck {
  const events = parseEvents(outcome.body);
  if (events.length !== 1)
    return {
      problems: [`event stream carries ${events.length} events, expected one result or error: ${clip(outcome.body)}`],
      errorEvent: false,
    };
  const [{ event, data }] = events as [{ event: string; data: string }];
  const parsed = parseJson(data);
  if (!parsed) return { problems: [`event ${event} data is not JSON: ${clip(data)}`], errorEvent: event === 'error' };
  if (event === 'error') {
    const problem = schemaErrors(ERROR_EVENT, parsed.value);
    const status = (parsed.value as { status?: unknown }).status;
    return {
      problems: problem ? [`error event ${clip(data)}: ${problem}`] : [],
      errorEvent: true,
      errorStatus: typeof status === 'number' ? status : undefined,
    };
  }
  if (event !== 'result') return { problems: [`unexpected event ${event}`], errorEvent: false };
  // The `result` event carries the JSON body, or what a `{result}` JSON body carries under `result` (count).
  const candidates = [resultSchema, resultSchema?.properties?.result].filter(
    (schema): schema is JsonSchema => schema !== undefined,
  );
  const problem =
    candidates.length > 0 && candidates.every((schema) => schemaErrors(schema, parsed.value))
      ? schemaErrors(candidates[0]!, parsed.value)
      : undefined;
  return {
    problems: problem ? [`result event does not match the declared schema (${problem}): ${clip(data)}`] : [],
    errorEvent: false,
  };
}

/**
 * A feed (a cluster's pod log or metrics, `…/stream`): any number of unnamed `data` events, then exactly one final
 * `end` or `error` event (the stream is bounded, so a complete one always ends).
 */
function checkFeedStream(outcome: Outcome): { problems: string[]; errorEvent: boolean } {
  const events = parseEvents(outcome.body);
  const last = events.at(-1);
  if (!last || (last.event !== 'end' && last.event !== 'error'))
    return {
      problems: [`feed stream does not end with an end or error event: ${clip(outcome.body)}`],
      errorEvent: false,
    };
  const named = events.slice(0, -1).find((event) => event.event !== '');
  if (named) return { problems: [`unexpected event ${named.event} inside a feed`], errorEvent: false };
  if (last.event === 'error') {
    const parsed = parseJson(last.data);
    const problem = parsed ? schemaErrors(FEED_ERROR_EVENT, parsed.value) : 'is not JSON';
    return { problems: problem ? [`feed error event ${clip(last.data)}: ${problem}`] : [], errorEvent: true };
  }
  return { problems: [], errorEvent: false };
}

const isFeed = (operation: FuzzRequest['op']) =>
  operation.path.startsWith('/api/clusters/') && operation.path.endsWith('/stream');

/** `errorStatus`: the status an event stream's `error` event carries (a refusal answered on a 200 stream). */
interface SuccessCheck {
  problems: string[];
  errorEvent: boolean;
  errorStatus?: number;
}

function checkSuccess(request: FuzzRequest, outcome: Outcome): SuccessCheck {
  const declared = request.op.responses[String(outcome.status)];
  // A raw URL trick may route to another operation (or none): only the shape checks above apply then.
  const routedElsewhere = Object.values(request.path).some((param) => param.raw);
  if (!declared)
    return {
      problems: routedElsewhere ? [] : [`status ${outcome.status} is not declared for ${request.op.id}`],
      errorEvent: false,
    };
  const types = Object.keys(declared);
  if (types.length === 0) return { problems: [], errorEvent: false };
  const mediaType = outcome.contentType.split(';', 1)[0]!.trim();
  if (!types.includes(mediaType))
    return {
      problems: routedElsewhere
        ? []
        : [`Content-Type ${outcome.contentType} is not declared for ${outcome.status} (${types.join(', ')})`],
      errorEvent: false,
    };
  if (mediaType === 'text/event-stream')
    return isFeed(request.op) ? checkFeedStream(outcome) : checkEventStream(outcome, declared['application/json']);
  if (mediaType === 'application/octet-stream' || mediaType === 'application/zip')
    return { problems: outcome.body.length > 0 ? [] : [`empty ${mediaType} body`], errorEvent: false };
  const parsed = parseJson(outcome.body);
  if (!parsed) return { problems: [`${outcome.status} body is not JSON: ${clip(outcome.body)}`], errorEvent: false };
  const schema = declared[mediaType];
  const problem = schema && !routedElsewhere ? schemaErrors(schema, parsed.value) : undefined;
  return {
    problems: problem
      ? [`${outcome.status} body does not match the declared schema (${problem}): ${clip(outcome.body)}`]
      : [],
    errorEvent: false,
  };
}

export function checkResponse(request: FuzzRequest, url: string, outcome: Outcome): Verdict {
  const problems: string[] = [];
  if (outcome.status >= 500) problems.push(`server error ${outcome.status}: ${clip(outcome.body)}`);
  let rejected = outcome.status >= 400;
  // A refusal on an event stream is a 200 whose one `error` event carries the status (docs/browser-api.md).
  let status = outcome.status;
  if (outcome.status >= 400) problems.push(...checkErrorBody(url, outcome));
  else {
    const success = checkSuccess(request, outcome);
    problems.push(...success.problems);
    rejected = success.errorEvent;
    status = success.errorStatus ?? status;
  }
  const broken = violation(request);
  if (broken && !rejected)
    problems.push(`accepted (${outcome.status}) a request that violates the declared schema or security: ${broken}`);
  if (request.expectStatus !== undefined && status !== request.expectStatus)
    problems.push(`expected ${request.expectStatus}, got ${status}: ${clip(outcome.body)}`);
  return { problems, rejected };
}
