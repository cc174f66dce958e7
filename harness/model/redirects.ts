import { RedirectRefused } from './refused.ts';

/**
 * Redirects, followed by hand (`redirect: 'manual'` on every hop) so that credentials never leave the origin they
 * were configured for. The global fetch strips only `Authorization` when a redirect changes origin, and would send
 * `x-api-key` (the Anthropic client's key), `api-key` or any other credential header to whatever host a 307 names —
 * http included. Here:
 * - at most `MAX_REDIRECTS` hops;
 * - a redirect from https to http is refused (credentials and the request body would travel in clear);
 * - once a hop changes origin (scheme, host or port), every header not on `SAFE_HEADERS` is dropped for the rest of
 *   the chain, whatever its name (a credential header toolgauge does not know of is dropped too);
 * - 303 (and 301/302 after a POST) continue as a GET without a body, as fetch does; 307/308 resend the body.
 */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/** Headers that never carry a credential: the only ones sent on past a change of origin. */
const SAFE_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'content-type',
  'user-agent',
  'anthropic-version',
]);
const SAFE_PREFIXES = ['x-toolgauge-', 'x-stainless-'];

export function isSafeHeader(name: string): boolean {
  const n = name.toLowerCase();
  return SAFE_HEADERS.has(n) || SAFE_PREFIXES.some((p) => n.startsWith(p));
}

/** The headers with every one that may carry a credential removed (pure). */
export function withoutCredentials(headers: RequestInit['headers']): Headers {
  const out = new Headers();
  new Headers(headers).forEach((v, k) => {
    if (isSafeHeader(k)) out.set(k, v);
  });
  return out;
}

/**
 * `send` (one HTTP exchange, never following a redirect itself) with the redirects of the answer followed as
 * described above. A `Request` object as input is sent as it is, its redirects not followed.
 */
export async function followRedirects(
  send: (url: string | Request, init: RequestInit) => Promise<Response>,
  input: string | URL | Request,
  init: RequestInit | undefined,
): Promise<Response> {
  if (typeof input !== 'string' && !(input instanceof URL)) return send(input, { ...init, redirect: 'manual' });
  let url = new URL(input);
  let req: RequestInit = { ...init, redirect: 'manual' };
  for (let hop = 0; ; hop++) {
    const res = await send(url.href, req);
    const location = REDIRECT_STATUS.has(res.status) ? res.headers.get('location') : null;
    if (location === null) return res;
    await res.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) throw new RedirectRefused(`more than ${MAX_REDIRECTS} redirects from ${url.origin}`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new RedirectRefused(`redirect from ${url.origin} to an unparseable location`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new RedirectRefused(`redirect from ${url.origin} to a ${next.protocol} URL refused`);
    if (url.protocol === 'https:' && next.protocol === 'http:')
      throw new RedirectRefused(`redirect from ${url.origin} to ${next.origin} refused: it leaves https`);
    if (next.origin !== url.origin) req = { ...req, headers: withoutCredentials(req.headers) };
    const method = (req.method ?? 'GET').toUpperCase();
    if (
      (res.status === 303 && method !== 'HEAD') ||
      ((res.status === 301 || res.status === 302) && method === 'POST')
    ) {
      const headers = new Headers(req.headers);
      headers.delete('content-type');
      headers.delete('content-length');
      req = { ...req, method: 'GET', body: null, headers };
    }
    url = next;
  }
}
