// Routes set the cookies their services describe.
import type { FastifyReply } from 'fastify';
import type { CookieToSet } from './cookies.js';

export function setCookies(reply: FastifyReply, cookies: readonly CookieToSet[]): void {
  for (const { name, value, options } of cookies) void reply.setCookie(name, value, options);
}
