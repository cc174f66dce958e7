// The front door every toolgauge loopback server shares (the simulator, `toolgauge serve`, the viewer): which
// requests are let in at all, before a route reads anything. A web page the user has open can send requests to a
// loopback port — directly (a form or `fetch` with a "simple" content type, no preflight) or through a DNS name it
// rebinds to 127.0.0.1 — so a request is answered only when its Host names this server's own address, a browser's
// Origin is this server's own, a JSON route's body is declared JSON, and the body fits a bound (read past it, it is
// drained and dropped: the client gets its 413, the process never holds it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';

/** A refusal at the front: an HTTP status and a one-line reason. */
export class FrontRefusal extends Error {
  override name = 'FrontRefusal';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** `host` as it appears in a Host header: an IPv6 literal in brackets, lower case. */
function hostForm(host: string): string {
  const h = host.toLowerCase();
  return isIP(h) === 6 ? `[${h}]` : h;
}

/**
 * The Host header values a server listening on `boundHost:port` answers: the loopback names, and the address it was
 * told to listen on. Bound to a wildcard (0.0.0.0, ::), any IP literal is accepted too: clients on the network name
 * the machine by its address, and a rebound DNS name — the attack — is never an IP literal.
 */
export function hostAllowed(header: string | undefined, port: number, boundHost = '127.0.0.1'): boolean {
  if (!header) return false;
  const h = header.toLowerCase();
  const names = new Set([...LOOPBACK_NAMES, hostForm(boundHost)]);
  if ([...names].some((n) => h === `${n}:${port}`)) return true;
  if (!WILDCARDS.has(hostForm(boundHost)) && !WILDCARDS.has(boundHost)) return false;
  const m = /^(\[[0-9a-f:.]+\]|[0-9.]+):(\d+)$/.exec(h);
  if (!m || Number(m[2]) !== port) return false;
  const ip = m[1]!.startsWith('[') ? m[1]!.slice(1, -1) : m[1]!;
  return isIP(ip) !== 0;
}

/**
 * Host and Origin of a request, checked against the server's address. A browser sends Origin with every POST (and
 * with cross-site GETs it makes through fetch); a request that carries one must come from a page of this very server.
 * Clients that are not browsers send none and are let through on Host alone.
 */
export function checkHostAndOrigin(req: IncomingMessage, port: number, boundHost?: string): void {
  if (!hostAllowed(req.headers.host, port, boundHost))
    throw new FrontRefusal(
      421,
      `Host ${JSON.stringify(req.headers.host ?? '')} is not this server's address (it answers on its loopback address and port ${port})`,
    );
  const origin = req.headers.origin;
  if (origin === undefined) return;
  // The page's own origin names the server the way its Host does (already checked above).
  if (origin.toLowerCase() !== `http://${req.headers.host!.toLowerCase()}`)
    throw new FrontRefusal(
      403,
      `Origin ${JSON.stringify(origin)} is not this server: requests from web pages are refused`,
    );
}

/**
 * A JSON route's body must say it is JSON (or say nothing, as a bare HTTP client may): a page's form or `fetch` with
 * `text/plain` reaches a server without the browser's preflight, `application/json` never does.
 */
export function checkJsonContentType(req: IncomingMessage): void {
  const type = req.headers['content-type'];
  if (type === undefined) return;
  const mime = type.split(';')[0]!.trim().toLowerCase();
  if (mime === 'application/json' || /^application\/[\w.+-]+\+json$/.test(mime)) return;
  throw new FrontRefusal(415, `content-type ${JSON.stringify(type)}: this route takes application/json`);
}

/**
 * The request body as text, at most `max` bytes. A declared Content-Length over the bound is refused before
 * anything is read; a body that grows past it stops being kept (the rest is read and dropped, so the 413 reaches the
 * client instead of a reset). Rejects with a 413 FrontRefusal naming the bound.
 */
export function readBoundedBody(req: IncomingMessage, max: number): Promise<string> {
  const tooLarge = () => new FrontRefusal(413, `request body larger than ${max} bytes`);
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      req.resume(); // drained, not kept
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > max) {
        over = true;
        chunks.length = 0;
        reject(tooLarge());
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

/** JSON text, or a 400 refusal. */
export function parseJsonBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new FrontRefusal(400, 'request body is not JSON');
  }
}

/**
 * Answer a refusal once the body has been dealt with: `connection: close`, so a client still sending a large body
 * does not hold the socket open, and the server stops reading it after the answer.
 */
export function sendRefusal(res: ServerResponse, r: FrontRefusal, body: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(r.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(r.status === 413 ? { connection: 'close' } : {}),
  });
  res.end(text);
}
