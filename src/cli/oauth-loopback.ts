// `graphdb-admin login --provider`: sign-in through the organisation's identity provider the way native apps do it
// (RFC 8252). A one-shot listener on 127.0.0.1 receives the browser after the web sign-in, with a one-time code that
// only this process can exchange, because only it knows the PKCE verifier.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError, EXIT } from './cli-errors.js';
import { printProgress } from './output.js';

export interface LoopbackResult {
  code: string;
  verifier: string;
}

const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>graphdb-admin</title><p>${text}</p>`;

/** Opens `url` in the desktop's browser when there is one; false when none could be started. */
function openBrowser(url: string): boolean {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false;
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs the browser part: listens on a free loopback port, sends the user (or prints the URL) to the server's
 * `/api/auth/oauth/<provider>` naming that address, and resolves with the code the browser brings back. Only a
 * request carrying this run's state is taken; the listener closes after it, or at `timeoutMs` (exit code 6).
 */
export async function signInThroughBrowser(
  server: string,
  provider: string,
  options: { openBrowser: boolean; timeoutMs: number },
): Promise<LoopbackResult> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(24).toString('base64url');
  let listener: Server | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const code = await new Promise<string>((resolve, reject) => {
      listener = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        if (url.pathname !== '/callback' || url.searchParams.get('state') !== state) {
          res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('Not this sign-in.'));
          return;
        }
        const received = url.searchParams.get('code');
        if (!received) {
          res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('No sign-in code arrived.'));
          reject(new CliError(EXIT.auth, 'the sign-in came back without a code'));
          return;
        }
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' })
          .end(PAGE('Signed in: you can close this tab and return to the terminal.'));
        resolve(received);
      });
      listener.on('error', reject);
      listener.listen(0, '127.0.0.1', () => {
        const { port } = listener!.address() as AddressInfo;
        const start = new URL(`/api/auth/oauth/${encodeURIComponent(provider)}`, server);
        start.searchParams.set('cliRedirect', `http://127.0.0.1:${port}/callback`);
        start.searchParams.set('codeChallenge', challenge);
        start.searchParams.set('cliState', state);
        const opened = options.openBrowser && openBrowser(start.toString());
        printProgress(
          opened
            ? `Opening the browser to sign in; if it does not open, visit:\n${start.toString()}`
            : `Open this URL in a browser to sign in:\n${start.toString()}`,
        );
      });
      timer = setTimeout(
        () => reject(new CliError(EXIT.timeout, `no sign-in arrived within ${options.timeoutMs / 1000}s`)),
        options.timeoutMs,
      );
    });
    return { code, verifier };
  } finally {
    clearTimeout(timer);
    listener?.closeAllConnections();
    listener?.close();
  }
}
