// The graph browser API plugin: Bearer personal access tokens, graphs, queries, nodes, config and users.
import type { FastifyInstance } from 'fastify';
import { installErrorHandling } from '../shared/error-handler.js';

export interface BrowserPluginOptions {
  authSecret: string | undefined;
  encryptionKey: string | undefined;
}

export async function browserPlugin(app: FastifyInstance, _options: BrowserPluginOptions): Promise<void> {
  installErrorHandling(app, 'browser');
  await Promise.resolve();
}
