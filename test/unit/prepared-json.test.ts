// sendJsonOf: a value at hand answers in the handler's own turn, a pending one when it settles; both through Fastify.
import Fastify, { type FastifyReply } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../src/http/http-errors.js';
import { jsonOncePerObject, sendJsonOf } from '../../src/http/prepared-json.js';

interface Item {
  name: string;
}

const itemJson = (item: Item | undefined): string => {
  if (!item) throw new UnauthorizedError('gone');
  return JSON.stringify({ name: item.name });
};

describe('sendJsonOf', () => {
  const app = Fastify();
  const returned: unknown[] = [];
  const answer = (reply: FastifyReply, value: Item | undefined | Promise<Item | undefined>) => {
    const result = sendJsonOf(reply, value, itemJson);
    returned.push(result);
    return result;
  };
  app.get('/at-hand', (_request, reply) => answer(reply, { name: 'now' }));
  app.get('/pending', (_request, reply) => answer(reply, Promise.resolve({ name: 'later' })));
  app.get('/missing-at-hand', (_request, reply) => answer(reply, undefined));
  app.get('/missing-pending', (_request, reply) => answer(reply, Promise.resolve(undefined)));
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) =>
    reply.code(error.statusCode ?? 500).send({ message: error.message }),
  );
  afterEach(() => {
    returned.length = 0;
  });

  it('sends a value at hand in the same turn and gives the handler nothing to await', async () => {
    const res = await app.inject('/at-hand');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({ name: 'now' });
    expect(returned).toEqual([undefined]);
  });

  it('sends a pending value once it settles, and returns the promise Fastify waits for', async () => {
    const res = await app.inject('/pending');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'later' });
    expect(returned[0]).toBeInstanceOf(Promise);
  });

  it('answers with the error toJson throws, on either path', async () => {
    for (const url of ['/missing-at-hand', '/missing-pending']) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'gone' });
    }
  });
});

describe('jsonOncePerObject', () => {
  it('encodes each object once, and a new object again', () => {
    let encoded = 0;
    const toJson = jsonOncePerObject((item: Item) => {
      encoded++;
      return { name: item.name };
    });
    const first = { name: 'a' };
    expect(toJson(first)).toBe('{"name":"a"}');
    expect(toJson(first)).toBe('{"name":"a"}');
    expect(encoded).toBe(1);
    expect(toJson({ name: 'b' })).toBe('{"name":"b"}');
    expect(encoded).toBe(2);
  });
});
