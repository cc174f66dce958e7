// Streamable HTTP on loopback: one MCP session per client (its own world, so each client runs the task afresh),
// sessions kept in memory until the client ends them or the server closes.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  checkHostAndOrigin,
  checkJsonContentType,
  FrontRefusal,
  parseJsonBody,
  readBoundedBody,
  sendRefusal,
} from '../core/http-front.ts';
import { toolServer, type ServerInfo } from './server.ts';
import type { CallLog, ServedWorld } from './world.ts';

export interface HttpServeOptions {
  info: ServerInfo;
  /** A fresh world for each session. */
  newWorld: () => ServedWorld;
  log: CallLog;
  /** 0: any free port. */
  port: number;
  /** The largest request body read (bytes). */
  maxBodyBytes?: number;
}

export interface ServedHttp {
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const MAX_SESSIONS = 64;

/** Serve on 127.0.0.1 only: there is no authentication, so nothing beyond this machine may reach it. */
export async function serveHttp(o: HttpServeOptions): Promise<ServedHttp> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const maxBody = o.maxBodyBytes ?? 4 * 1024 * 1024;
  let port = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The shared front (harness/core/http-front.ts): our own Host only, no web page's Origin, JSON bodies, a bound.
    checkHostAndOrigin(req, port);
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp')
      throw new FrontRefusal(404, 'not found: the MCP endpoint is /mcp');
    let body: unknown;
    if (req.method === 'POST') {
      checkJsonContentType(req);
      body = parseJsonBody(await readBoundedBody(req, maxBody));
    }
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res, body);
    if (typeof id === 'string') throw new FrontRefusal(404, `unknown MCP session ${JSON.stringify(id.slice(0, 64))}`);
    if (req.method !== 'POST' || !isInitializeRequest(body))
      throw new FrontRefusal(400, 'no MCP session: start one with an initialize request');
    if (sessions.size >= MAX_SESSIONS) throw new FrontRefusal(503, `over ${MAX_SESSIONS} open MCP sessions`);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, transport);
      },
      onsessionclosed: (sid) => {
        sessions.delete(sid);
      },
    });
    const server = toolServer(o.newWorld(), o.info, o.log, () => transport.sessionId ?? '');
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const r =
        err instanceof FrontRefusal ? err : new FrontRefusal(500, `MCP server error: ${(err as Error).message}`);
      sendRefusal(res, r, { jsonrpc: '2.0', error: { code: -32000, message: r.message }, id: null });
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(o.port, HOST, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  return {
    url: `http://${HOST}:${port}/mcp`,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => {})));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
