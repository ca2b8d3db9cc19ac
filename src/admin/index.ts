// The administration API plugin: cookie sessions, OAuth sign-in, settings, users and clusters.
import type { FastifyInstance } from 'fastify';
import { createErrorHandler } from '../shared/error-handler.js';
import { addErrorResponses } from '../shared/openapi.js';

export interface AdminPluginOptions {
  sessionSecret: string | undefined;
  publicOrigin: string;
}

export async function adminPlugin(app: FastifyInstance, _options: AdminPluginOptions): Promise<void> {
  app.setErrorHandler(createErrorHandler('admin'));
  app.addHook('onRoute', addErrorResponses('admin'));
  await Promise.resolve();
}
