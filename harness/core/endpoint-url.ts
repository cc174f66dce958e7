/**
 * What of an endpoint URL may be stored and shown, and what is secret. Credentials travel in URLs in many ways —
 * `user:pass@`, `?api_key=`, Azure Functions' `?code=`, a signed URL's `?sig=` — and no list of parameter names
 * covers them all, so no query value is ever stored: the stored and shown URL keeps each parameter's name with the
 * value `REDACTED` (docs/outputs.md), and every query value is registered for redaction.
 * Also where a server's own routes are, beside its OpenAI-compatible `/v1`.
 */

/** The value every query parameter shows in a stored or printed URL. */
export const QUERY_VALUE_SHOWN = 'REDACTED';

/** The URL without user, password and fragment, each query value replaced (pure; throws on an unparseable URL). */
export function displayUrl(raw: string): string {
  const u = new URL(raw);
  u.username = '';
  u.password = '';
  u.hash = '';
  const names = [...new Set(u.searchParams.keys())];
  u.search = '';
  for (const k of names) u.searchParams.append(k, QUERY_VALUE_SHOWN);
  return u.toString();
}

/**
 * Every secret a URL carries, as text that could show up somewhere: the password (raw and as written), the Basic
 * header made of the user and password (an endpoint may echo it), and every query value (raw and as written).
 * An unparseable URL carries none that can be found.
 */
export function urlSecrets(raw: string | undefined): string[] {
  if (!raw) return [];
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [];
  }
  const out: string[] = [];
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    if (pass) out.push(pass, u.password);
    out.push(Buffer.from(`${user}:${pass}`).toString('base64'));
  }
  for (const [, v] of u.searchParams) if (v) out.push(v, encodeURIComponent(v));
  const written = u.search.slice(1).split('&');
  for (const pair of written) {
    const eq = pair.indexOf('=');
    if (eq >= 0 && pair.length > eq + 1) out.push(pair.slice(eq + 1));
  }
  return [...new Set(out)];
}

/** The server's root, where its routes beside `/v1` are (`/props`, `/version`, `/toolgauge/engine`): `…/v1/` → `…`. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}
