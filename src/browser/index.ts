// The graph browser API plugin: Bearer personal access tokens, graphs, queries, nodes, config and users.
import type { FastifyInstance } from 'fastify';
import { createErrorHandler } from '../shared/error-handler.js';
import { addErrorResponses } from '../shared/openapi.js';

export interface BrowserPluginOptions {
  authSecret: string | undefined;
  encryptionKey: string | undefined;
}

export async function browserPlugin(app: FastifyInstance, _options: BrowserPluginOptions): Promise<void> {
  app.setErrorHandler(createErrorHandler('browser'));
  app.addHook('onRoute', addErrorResponses('browser'));
  await Promise.resolve();
}
