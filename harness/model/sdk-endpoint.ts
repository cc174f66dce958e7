import type OpenAI from 'openai';
import type { ModelClient } from './client.ts';
import { requestHeaders } from './client.ts';
import { parseEndpoint } from './endpoint.ts';
import { boundedFetch } from './fetch.ts';
import type { CallContext } from './types.ts';

/**
 * The run's endpoint as another SDK needs it (the Vercel AI SDK, the OpenAI Agents SDK): the base URL without
 * credentials, the key, the model, and the headers of one case — the URL's credentials plus toolgauge's request
 * headers, so the simulator and the cache know which case a request is about. The fetch is the kit's own: size
 * limit, and credentials never follow a redirect to another origin.
 */
export interface SdkEndpoint {
  baseUrl: string;
  apiKey: string;
  model: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  fetch: typeof fetch;
  timeoutMs: number;
  retries: number;
}

export function sdkEndpoint(client: ModelClient, ctx: CallContext): SdkEndpoint {
  const o = client.opts;
  const ep = parseEndpoint(o.baseUrl);
  return {
    baseUrl: ep.baseUrl,
    apiKey: o.apiKey || 'not-needed',
    model: o.model,
    headers: { ...ep.headers, ...requestHeaders(ctx) },
    query: ep.query,
    fetch: boundedFetch(o.maxResponseBytes ?? 32 * 2 ** 20),
    timeoutMs: o.timeoutMs,
    retries: o.retries,
  };
}

/** An OpenAI SDK client for one case on the endpoint, its headers sent with every request (loaded on first use). */
export async function openAIClientFor(ep: SdkEndpoint): Promise<OpenAI> {
  const { default: SDK } = await import('openai');
  return new SDK({
    baseURL: ep.baseUrl,
    apiKey: ep.apiKey,
    defaultHeaders: ep.headers,
    defaultQuery: ep.query,
    fetch: ep.fetch,
    timeout: ep.timeoutMs,
    maxRetries: ep.retries,
  });
}
