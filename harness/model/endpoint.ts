import { displayUrl, urlSecrets } from '../core/endpoint-url.ts';
import { registerSecret } from '../core/redact.ts';

/**
 * An endpoint URL as users write it, split into what an HTTP client can use: `http://user:pass@host/v1?api_key=K`
 * becomes the base URL `http://host/v1`, a Basic authorization header and the query parameters sent with every
 * request (fetch refuses URLs with credentials, and a query on a base URL would end up before the request path).
 */
export interface Endpoint {
  baseUrl: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  /** The URL for reports and messages: no credentials, every query value replaced (core/endpoint-url.ts). */
  display: string;
  /** Every secret in the URL (registered for redaction when the URL is parsed). */
  secrets: string[];
}

/**
 * The endpoint of a URL. Its secrets (every query value, the password) are registered for redaction here: every
 * process that talks to an endpoint parses its URL with this function first.
 */
export function parseEndpoint(raw: string): Endpoint {
  const u = new URL(raw);
  const headers: Record<string, string> = {};
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of u.searchParams) query[k] = v;
  const base = new URL(u.toString());
  base.username = '';
  base.password = '';
  base.search = '';
  base.hash = '';
  const secrets = urlSecrets(raw);
  for (const s of secrets) registerSecret(s);
  return { baseUrl: base.toString().replace(/\/$/, ''), headers, query, display: displayUrl(raw), secrets };
}
