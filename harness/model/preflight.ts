import OpenAI, { APIConnectionError, APIError } from 'openai';
import { parseEndpoint } from './endpoint.ts';
import { boundedFetch } from './fetch.ts';

/** The endpoint cannot serve the run: raised before any instance runs, with the URL and the cause. */
export class EndpointUnavailable extends Error {
  override name = 'EndpointUnavailable';
}

/**
 * Check once, before a run, that the endpoint answers: list its models, and where that route is missing, make a
 * 1-token request. A closed port, a wrong path or a refused key is reported in seconds with the URL (credentials
 * hidden) and the cause, instead of every instance retrying for a quarter of a minute.
 */
export async function checkEndpoint(o: { baseUrl: string; apiKey: string; model: string; timeoutMs?: number }): Promise<{ models: string[] | null }> {
  const ep = parseEndpoint(o.baseUrl);
  const sdk = new OpenAI({
    baseURL: ep.baseUrl,
    apiKey: o.apiKey || 'not-needed',
    maxRetries: 0,
    timeout: o.timeoutMs ?? 10_000,
    defaultHeaders: ep.headers,
    defaultQuery: ep.query,
    fetch: boundedFetch(8 * 2 ** 20),
  });
  const where = ep.display;
  try {
    const page = await sdk.models.list();
    return { models: page.data.map((m) => m.id) };
  } catch (err) {
    if (err instanceof APIError && !(err instanceof APIConnectionError) && (err.status === 404 || err.status === 405)) {
      // No models route (some servers): a 1-token request tells whether the endpoint serves the model.
      try {
        await sdk.chat.completions.create({ model: o.model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 });
        return { models: null };
      } catch (err2) {
        throw new EndpointUnavailable(`endpoint ${where} does not serve model '${o.model}': ${describe(err2)}`);
      }
    }
    throw new EndpointUnavailable(`endpoint ${where} is not usable: ${describe(err)}`);
  }
}

/** One line: the HTTP status and the server's message, or the network cause (ECONNREFUSED, ENOTFOUND, timeout). */
export function describe(err: unknown): string {
  if (err instanceof APIConnectionError) {
    let c: unknown = err.cause;
    const parts: string[] = [];
    for (let i = 0; c && i < 4; i++) {
      const e = c as { code?: string; message?: string; cause?: unknown };
      if (e.code) parts.push(e.code);
      else if (e.message && !/fetch failed/.test(e.message)) parts.push(e.message);
      c = e.cause;
    }
    return `${err.message.replace(/\.$/, '')}${parts.length ? ` (${[...new Set(parts)].join(', ')})` : ''}`;
  }
  if (err instanceof APIError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
