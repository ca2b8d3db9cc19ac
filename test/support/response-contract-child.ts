// Loaded with --import into every server runServerProcess starts (test/support/server-process.ts): each Fastify
// instance the process creates gets the response check startTestApp installs in-process, and each mismatch goes to
// stderr on a line of its own, which runServerProcess takes out of stderr and records for the test under way.
import { subscribe } from 'node:diagnostics_channel';
import type { FastifyInstance } from 'fastify';
import { checkResponsesAgainstDocument, MISMATCH_LINE_PREFIX } from './response-contract.js';

// Fastify publishes every new instance on this channel before any plugin or route is registered on it.
subscribe('fastify.initialization', (message) => {
  const { fastify } = message as { fastify: FastifyInstance };
  checkResponsesAgainstDocument(fastify, (mismatch) => {
    process.stderr.write(`${MISMATCH_LINE_PREFIX}${JSON.stringify(mismatch)}\n`);
  });
});
