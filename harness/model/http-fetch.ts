import { Agent, request, type IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';

/**
 * A plain-HTTP request through `node:http` with one keep-alive agent: the request goes out in one write with its
 * length (the global fetch streams a body in chunks, and its spec machinery costs about twice the CPU per request
 * on a local server). Used for `http:` endpoints — local servers, the simulator — where a run makes thousands of
 * requests; anything else goes through the global fetch. The body is read up to `maxBytes`; past it,
 * `tooLarge(bytes)` is thrown (the request is dropped, nothing more is read).
 */
export interface RawResponse {
  status: number;
  statusText: string;
  headers: Headers;
  body: Buffer;
}

const agent = new Agent({ keepAlive: true });

/** Whether `httpRequestCapped` can send this request (an `http:` URL, a text or byte body or none). */
export function sendsOverHttp(url: string, init: RequestInit | undefined): boolean {
  if (!url.startsWith('http://')) return false;
  const body = init?.body;
  return body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
}

export function httpRequestCapped(
  url: string,
  init: RequestInit | undefined,
  maxBytes: number,
  tooLarge: (bytes: number | null) => Error,
): Promise<RawResponse> {
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((v, k) => {
    headers[k] = v;
  });
  const raw = init?.body;
  const body =
    raw === undefined || raw === null
      ? undefined
      : typeof raw === 'string'
        ? Buffer.from(raw, 'utf8')
        : Buffer.from(raw as Uint8Array);
  if (body) headers['content-length'] = String(body.byteLength);
  // Compressed bodies are decoded below; asking for them only when the caller did.
  headers['accept-encoding'] ??= 'identity';
  return new Promise<RawResponse>((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      req.destroy();
      reject(err);
    };
    const onAbort = () => fail(abortError(signal!));
    const req = request(url, { method: init?.method ?? 'GET', headers, agent }, (res) => {
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        fail(tooLarge(declared));
        return res.destroy();
      }
      const chunks: Buffer[] = [];
      let total = 0;
      const stream = decoded(res);
      stream.on('data', (c: Buffer) => {
        total += c.byteLength;
        if (total > maxBytes) {
          fail(tooLarge(null));
          return res.destroy();
        }
        chunks.push(c);
      });
      stream.on('error', (err: Error) => fail(err));
      res.on('error', (err: Error) => fail(err));
      res.on('aborted', () =>
        fail(Object.assign(new Error('terminated: the response ended early'), { code: 'ECONNRESET' })),
      );
      stream.on('end', () => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: headersOf(res),
          body: Buffer.concat(chunks),
        });
      });
    });
    req.on('error', (err) => fail(err));
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}

function decoded(res: IncomingMessage): Readable {
  const enc = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (enc === 'gzip' || enc === 'x-gzip') return res.pipe(createGunzip());
  if (enc === 'deflate') return res.pipe(createInflate());
  if (enc === 'br') return res.pipe(createBrotliDecompress());
  return res;
}

function headersOf(res: IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined || k === 'content-encoding' || k === 'content-length') continue;
    for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
  }
  return h;
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  const err = new DOMException(reason instanceof Error ? reason.message : 'This operation was aborted', 'AbortError');
  return err;
}
