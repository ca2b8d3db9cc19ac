// Loaded with --import into a server process by test/process/response-contract.test.ts only: its app answers what
// the API document does not say when a request carries `x-wrong`, so that test can see the child's check say no.
import { subscribe } from 'node:diagnostics_channel';
import type { FastifyInstance } from 'fastify';

subscribe('fastify.initialization', (message) => {
  const { fastify } = message as { fastify: FastifyInstance };
  fastify.addHook('onRequest', async (request, reply) => {
    if (request.headers['x-wrong'] === 'status') return reply.code(418).send({ status: 'ok' });
    return undefined;
  });
});
