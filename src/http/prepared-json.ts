// Responses serialized ahead of Fastify's schema serializer: text sent as it is (or a stream of it), and JSON
// encoded through a response schema once per object for values that are read far more often than they change.
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** Sends JSON text (or a stream of it) as the body; a route's typed reply does not accept these, Fastify does. */
export function sendJsonText(reply: FastifyReply, body: string | Readable): FastifyReply {
  return sendText(reply, 'application/json; charset=utf-8', body);
}

/**
 * Sends `toJson(value)` as the JSON body. A value at hand (read from memory) is sent in this turn, and the handler
 * returns nothing: no promise and no microtasks, which reads served on every console page would otherwise pay on every
 * request. A pending value is sent when it arrives, and its promise returned for Fastify to await.
 */
export function sendJsonOf<T>(
  reply: FastifyReply,
  value: T | Promise<T>,
  toJson: (value: T) => string,
): Promise<void> | undefined {
  if (value instanceof Promise) return sendWhenSettled(reply, value, toJson);
  sendJsonText(reply, toJson(value));
  return undefined;
}

async function sendWhenSettled<T>(reply: FastifyReply, value: Promise<T>, toJson: (value: T) => string): Promise<void> {
  // A reply is a thenable that settles when the response has gone, as an async handler that returns it would wait.
  await sendJsonText(reply, toJson(await value));
}

/** Sends prepared text (or a stream of it) of any type as the body, past the route's typed reply. */
export function sendText(reply: FastifyReply, contentType: string, body: string | Readable): FastifyReply {
  return reply.type(contentType).send(body);
}

/**
 * `encode` (a response schema's encoding, so fields the schema leaves out still cannot appear) turned into JSON
 * once per object. The objects must not change after they are first sent: each version is a new object.
 */
export function jsonOncePerObject<T extends object>(encode: (value: T) => unknown): (value: T) => string {
  const cache = new WeakMap<T, string>();
  return (value) => {
    let json = cache.get(value);
    if (json === undefined) {
      json = JSON.stringify(encode(value));
      cache.set(value, json);
    }
    return json;
  };
}
