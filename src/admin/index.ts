// The administration API plugin: cookie sessions, OAuth sign-in, settings, users and clusters.
import type { FastifyInstance } from 'fastify';
import { installErrorHandling } from '../shared/error-handler.js';

export interface AdminPluginOptions {
  sessionSecret: string | undefined;
  publicOrigin: string;
}

export async function adminPlugin(app: FastifyInstance, _options: AdminPluginOptions): Promise<void> {
  installErrorHandling(app, 'admin');
  await Promise.resolve();
}
