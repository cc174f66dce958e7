// Streamable HTTP on loopback: one MCP session per client (its own world, so each client runs the task afresh),
// sessions kept in memory until the client ends them or the server closes.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
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
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return reply(res, 404, 'not found: the MCP endpoint is /mcp');
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (req.method !== 'POST') return reply(res, 400, 'no MCP session: start one with an initialize request');
    const body = await readJson(req, maxBody);
    if (body === undefined) return reply(res, 400, 'the request body is not JSON (or is over the size limit)');
    if (typeof id === 'string') return reply(res, 404, `unknown MCP session ${JSON.stringify(id.slice(0, 64))}`);
    if (!isInitializeRequest(body)) return reply(res, 400, 'no MCP session: start one with an initialize request');
    if (sessions.size >= MAX_SESSIONS) return reply(res, 503, `over ${MAX_SESSIONS} open MCP sessions`);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, transport);
      },
      onsessionclosed: (sid) => {
        sessions.delete(sid);
      },
      // A web page must not drive a loopback server: only our own Host names are accepted.
      enableDnsRebindingProtection: true,
      allowedHosts: [`${HOST}:${port}`, `localhost:${port}`],
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
      if (!res.headersSent) reply(res, 500, `MCP server error: ${(err as Error).message}`);
      else res.destroy();
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

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** The body as JSON, or undefined when it is not JSON or longer than `max` bytes. */
async function readJson(req: IncomingMessage, max: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > max) return undefined;
    chunks.push(c as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
