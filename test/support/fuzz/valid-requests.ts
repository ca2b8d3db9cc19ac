// Requests that satisfy an operation's declared schemas, generated from them (with the fixture's hints mixed in).
import fc from 'fast-check';
import type { Operation } from './operations.js';
import { printable, type FuzzRequest } from './requests.js';
import { valueArbitrary, type GenerationContext } from './schema-arbitraries.js';

/** The hint name under which a fixture offers whole request bodies (e.g. real credentials for token creation). */
export const WHOLE_BODY = '$body';

export function answersEventStream(op: Operation): boolean {
  return Object.values(op.responses).some((content) => 'text/event-stream' in content);
}

function asParameterText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function validRequests(op: Operation, context: GenerationContext): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((param) => param.in === 'path');
  const queryParams = op.params.filter((param) => param.in === 'query');
  const path = fc.record(
    Object.fromEntries(
      pathParams.map((param) => [
        param.name,
        valueArbitrary(param.schema, context, param.name).map((value) => ({ value: asParameterText(value) })),
      ]),
    ),
  );
  const query = fc.record(
    Object.fromEntries(
      queryParams.map((param) => [param.name, valueArbitrary(param.schema, context, param.name).map(asParameterText)]),
    ),
    {
      requiredKeys: queryParams.filter((param) => param.required).map((param) => param.name),
    },
  );
  let body: fc.Arbitrary<FuzzRequest['body']> = fc.constant(undefined);
  if (op.body) {
    const generated = valueArbitrary(op.body.schema, context);
    const whole = context.hintsFor(WHOLE_BODY);
    body = (whole ? fc.oneof({ weight: 2, arbitrary: whole }, { weight: 1, arbitrary: generated }) : generated).map(
      (json) => ({ json }),
    );
  }
  const accept = answersEventStream(op)
    ? fc.constantFrom(undefined, 'text/event-stream', 'application/json')
    : fc.constant(undefined);
  return fc
    .record({ path, query, body, accept })
    .map(({ path: pathValues, query: queryValues, body: bodyValue, accept: acceptValue }) =>
      printable({
        op,
        variant: 'valid',
        path: pathValues,
        query: queryValues,
        body: bodyValue,
        auth: 'valid',
        accept: acceptValue,
      }),
    );
}
