import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkHostAndOrigin, FrontRefusal } from '../core/http-front.ts';

/**
 * The viewer's HTTP server: one page on 127.0.0.1, rebuilt from the run directories on every load (so a reload
 * shows a run that is still writing). It answers only GET and HEAD of `/`, only to a Host header naming the
 * loopback address it listens on and no other site's Origin (the shared front, core/http-front.ts: a page on another
 * site cannot reach it through a rebound DNS name), and sends
 * the page with a Content-Security-Policy of its own besides the page's.
 */
export interface ViewServer {
  url: string;
  close(): Promise<void>;
}

export async function serveView(
  page: (query: URLSearchParams) => Promise<string>,
  o: {
    port?: number;
    onError?: (err: Error) => void;
    /** What `/version` answers: it changes when the runs change, and the open page then reloads (view/history.ts). */
    version?: () => string;
    /** Other GET paths answered with JSON (the paged viewer's `/index` and `/case`, served.ts); null: not found. */
    api?: (path: string, query: URLSearchParams) => { status: number; json: unknown } | null;
  } = {},
): Promise<ViewServer> {
  let port = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      checkHostAndOrigin(req, port);
    } catch (err) {
      const status = err instanceof FrontRefusal ? err.status : 400;
      res
        .writeHead(status, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`toolgauge view answers only on its loopback address: ${(err as Error).message}\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (path === '/version' && o.version) {
      res
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
        .end(req.method === 'HEAD' ? undefined : o.version());
      return;
    }
    const answer = path !== '/' && path !== '/index.html' ? o.api?.(path, url.searchParams) : null;
    if (answer) {
      res
        .writeHead(answer.status, {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        })
        .end(req.method === 'HEAD' ? undefined : JSON.stringify(answer.json));
      return;
    }
    if (path !== '/' && path !== '/index.html') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    try {
      const html = await page(url.searchParams);
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
        // The page's own policy (by hash) is in its <meta>; this one forbids everything that is not inline or data:.
        'content-security-policy':
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      });
      res.end(req.method === 'HEAD' ? undefined : html);
    } catch (err) {
      o.onError?.(err as Error);
      res
        .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`toolgauge view: ${(err as Error).message}\n`);
    }
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
