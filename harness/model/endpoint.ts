/**
 * An endpoint URL as users write it, split into what an HTTP client can use: `http://user:pass@host/v1?api_key=K`
 * becomes the base URL `http://host/v1`, a Basic authorization header and the query parameters sent with every
 * request (fetch refuses URLs with credentials, and a query on a base URL would end up before the request path).
 */
export interface Endpoint {
  baseUrl: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  /** The URL for reports and messages: credentials and key-like query values replaced. */
  display: string;
  /** Every secret in the URL, for redaction. */
  secrets: string[];
}

const SECRET_PARAM = /key|token|secret|auth|pass|sig/i;

export function parseEndpoint(raw: string): Endpoint {
  const u = new URL(raw);
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    if (pass) secrets.push(pass, u.password);
    secrets.push(Buffer.from(`${user}:${pass}`).toString('base64'));
  }
  const query: Record<string, string> = {};
  for (const [k, v] of u.searchParams) {
    query[k] = v;
    if (SECRET_PARAM.test(k) && v) secrets.push(v, encodeURIComponent(v));
  }
  const base = new URL(u.toString());
  base.username = '';
  base.password = '';
  base.search = '';
  base.hash = '';
  const shown = new URL(base.toString());
  for (const [k, v] of Object.entries(query)) shown.searchParams.set(k, SECRET_PARAM.test(k) ? 'REDACTED' : v);
  if (u.username) shown.username = 'REDACTED';
  return {
    baseUrl: base.toString().replace(/\/$/, ''),
    headers,
    query,
    display: shown.toString(),
    secrets: [...new Set(secrets.filter((s) => s.length >= 4))],
  };
}
