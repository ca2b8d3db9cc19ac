// Requests as one identity (a role's token or session cookie, or none): through Fastify's inject, or over real HTTP
// to the app when it listens. The identity is read at each request, so a test may hold an actor made before the app
// started, and a session the test renews (e.g. after a role change) is the one sent next.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

export interface ActorRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** Sent as JSON (inject() sends a string as it is); no body when undefined. */
  payload?: unknown;
  /** Added to (and overriding) the actor's own headers. */
  headers?: Record<string, string>;
}

/** A status and a parsed JSON body, as a client over HTTP reads them. */
export interface HttpAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface Actor {
  inject(request: ActorRequest): Promise<LightMyRequestResponse>;
  /** Over real HTTP: the app must listen (`listen: true` when it is built). */
  fetch(request: ActorRequest): Promise<HttpAnswer>;
}

export interface ActorTarget {
  app: () => FastifyInstance;
  /** The headers that say who the actor is: `authorization` or `cookie`; none for an anonymous one. */
  identity: () => Record<string, string>;
  /** Where the app listens, for fetch(); empty or absent when it does not. */
  baseUrl?: () => string;
}

export function actorFor({ app, identity, baseUrl }: ActorTarget): Actor {
  return {
    inject: ({ method, url, payload, headers }) =>
      app().inject({
        method,
        url,
        headers: { ...identity(), ...headers },
        ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
      }),
    async fetch({ method, url, payload, headers }) {
      const base = baseUrl?.();
      if (!base) throw new Error('fetch() needs a listening app: build it with listen: true');
      const res = await fetch(`${base}${url}`, {
        method,
        headers: {
          ...identity(),
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: payload === undefined ? undefined : JSON.stringify(payload),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
  };
}
