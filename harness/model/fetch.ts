import { redactCut } from '../core/redact.ts';
import { httpRequestCapped, sendsOverHttp } from './http-fetch.ts';
import { followRedirects } from './redirects.ts';
import { ResponseTooLarge } from './refused.ts';

export { FetchRefused, RedirectRefused, ResponseTooLarge } from './refused.ts';

/**
 * The fetch both model clients use (the SDK's and the Anthropic client's), with three fixes at the edge:
 * - redirects are followed by hand, and credential headers never reach another origin (redirects.ts);
 * - an error body without an `error` object (vLLM's flat `{"object":"error","message":…}`, or plain text) is
 *   reshaped to `{"error": {"message": …}}`, so the failure shows the server's message instead of
 *   "400 status code (no body)";
 * - a response body larger than `maxBytes` is refused instead of being held in memory (a hostile endpoint can
 *   send gigabytes).
 */
export function boundedFetch(maxBytes: number, inner: typeof fetch = fetch): typeof fetch {
  const once = oneExchange(maxBytes, inner);
  return (input, init) => followRedirects(once, input, init);
}

/** One request and its answer, redirects not followed (node:http never follows; fetch is told `manual`). */
function oneExchange(
  maxBytes: number,
  inner: typeof fetch,
): (input: string | Request, init: RequestInit) => Promise<Response> {
  return async (input, init) => {
    // Plain HTTP (a local server, the simulator) through node:http: one write per request, a third of the CPU.
    if (inner === fetch && typeof input === 'string' && sendsOverHttp(input, init)) {
      const r = await httpRequestCapped(
        input,
        init,
        maxBytes,
        (bytes) =>
          new ResponseTooLarge(
            bytes === null
              ? `response body exceeds the limit of ${maxBytes} bytes`
              : `response body of ${bytes} bytes exceeds the limit of ${maxBytes} bytes`,
          ),
      );
      const text = r.body.toString('utf8');
      const nullBody = r.status === 101 || r.status === 204 || r.status === 205 || r.status === 304;
      return new Response(nullBody ? null : r.status >= 200 && r.status < 300 ? text : reshapeError(text), {
        status: r.status,
        statusText: r.statusText,
        headers: r.headers,
      });
    }
    const res = await inner(input, init);
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new ResponseTooLarge(`response body of ${declared} bytes exceeds the limit of ${maxBytes} bytes`);
    }
    const body = await readCapped(res, maxBytes);
    const text = body.toString('utf8');
    const out = res.ok ? text : reshapeError(text);
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(out, { status: res.status, statusText: res.statusText, headers });
  };
}

async function readCapped(res: Response, maxBytes: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLarge(`response body exceeds the limit of ${maxBytes} bytes`);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

/** `{"error": {...}}` stays; any other error body becomes one with the server's own message. */
export function reshapeError(text: string): string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const t = text.trim();
    return t ? JSON.stringify({ error: { message: cutMessage(t) } }) : text;
  }
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    if (o.error && typeof o.error === 'object') return text;
    const message =
      typeof o.message === 'string'
        ? o.message
        : typeof o.detail === 'string'
          ? o.detail
          : typeof o.error === 'string'
            ? o.error
            : cutMessage(JSON.stringify(o));
    return JSON.stringify({
      error: {
        message,
        ...(typeof o.type === 'string' ? { type: o.type } : {}),
        ...(o.code !== undefined ? { code: o.code } : {}),
      },
    });
  }
  return JSON.stringify({ error: { message: cutMessage(String(text)) } });
}

/** An error message bounded to 2,000 characters; secrets are redacted before the cut (core/redact.ts). */
const MESSAGE_CHARS = 2000;
function cutMessage(text: string): string {
  return redactCut(text, MESSAGE_CHARS, () => '…');
}
