// Sends fuzz requests over a real socket: app.inject parses URLs with WHATWG URL, which would normalise the very
// tricks under test (`%2E%2E`, `..`), and only a socket shows what Node's HTTP parser does with an oversized URL.
import { Agent, request as httpRequest } from 'node:http';
import type { HttpRequest } from './requests.js';

export interface HttpResponse {
  status: number;
  contentType: string;
  body: string;
}

export interface HttpClient {
  send(request: HttpRequest): Promise<HttpResponse>;
  close(): void;
}

export function createHttpClient(baseUrl: string, timeoutMs = 30_000): HttpClient {
  const { hostname, port } = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  function once(request: HttpRequest): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      const payload = request.payload === undefined ? undefined : Buffer.from(request.payload, 'utf8');
      const headers: Record<string, string | number> = { ...request.headers };
      if (payload) headers['content-length'] = payload.length;
      const outgoing = httpRequest(
        {
          host: hostname,
          port: Number(port),
          method: request.method,
          path: request.url,
          headers,
          agent,
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: res.headers['content-type'] ?? '',
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error(`no response within ${timeoutMs} ms`)));
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }

  return {
    async send(request) {
      try {
        return await once(request);
      } catch (error) {
        // A kept-alive socket the server closed after its previous answer (e.g. an oversized request): try once more.
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ECONNRESET' || code === 'EPIPE') return once(request);
        throw error;
      }
    },
    close: () => agent.destroy(),
  };
}
