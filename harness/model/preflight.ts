import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseEndpoint } from './endpoint.ts';
import { reshapeError } from './fetch.ts';

/** The endpoint cannot serve the run: raised before any instance runs, with the URL and the cause. */
export class EndpointUnavailable extends Error {
  override name = 'EndpointUnavailable';
}

/** Largest answer the check reads (a models list; a hostile endpoint can send gigabytes). */
const MAX_BYTES = 8 * 2 ** 20;

/**
 * Check once, before a run, that the endpoint answers: list its models, and where that route is missing, make a
 * 1-token request. A closed port, a wrong path or a refused key is reported in seconds with the URL (credentials
 * hidden) and the cause, instead of every instance retrying for a quarter of a minute. It runs in the run's main
 * process with node:http, which then loads neither the OpenAI SDK nor undici (about 0.15 CPU-s of every run).
 */
export async function checkEndpoint(o: {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
}): Promise<{ models: string[] | null; owners: string[] }> {
  const ep = parseEndpoint(o.baseUrl);
  const where = ep.display;
  const headers = { authorization: `Bearer ${o.apiKey || 'not-needed'}`, accept: 'application/json', ...ep.headers };
  const url = (path: string) => {
    const u = new URL(`${ep.baseUrl}/${path}`);
    for (const [k, v] of Object.entries(ep.query)) u.searchParams.set(k, v);
    return u;
  };
  const timeoutMs = o.timeoutMs ?? 10_000;
  let models: HttpAnswer;
  try {
    models = await send(url('models'), 'GET', headers, undefined, timeoutMs);
  } catch (err) {
    throw new EndpointUnavailable(`endpoint ${where} is not usable: ${(err as Error).message}`);
  }
  if (models.status >= 200 && models.status < 300) {
    const ids = modelIds(models.text);
    if (ids) return { models: ids, owners: modelOwners(models.text) };
    throw new EndpointUnavailable(`endpoint ${where} is not usable: its models list is not an OpenAI-style JSON list`);
  }
  if (models.status !== 404 && models.status !== 405)
    throw new EndpointUnavailable(`endpoint ${where} is not usable: ${statusMessage(models)}`);
  // No models route (some servers): a 1-token request tells whether the endpoint serves the model.
  let chat: HttpAnswer;
  try {
    const body = JSON.stringify({ model: o.model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 });
    chat = await send(
      url('chat/completions'),
      'POST',
      { ...headers, 'content-type': 'application/json' },
      body,
      timeoutMs,
    );
  } catch (err) {
    throw new EndpointUnavailable(`endpoint ${where} does not serve model '${o.model}': ${(err as Error).message}`);
  }
  if (chat.status >= 200 && chat.status < 300) return { models: null, owners: [] };
  throw new EndpointUnavailable(`endpoint ${where} does not serve model '${o.model}': ${statusMessage(chat)}`);
}

interface HttpAnswer {
  status: number;
  text: string;
}

/**
 * The endpoint's models list, each entry whole (`id`, `owned_by`, `created` and whatever else the server adds), or null
 * when it has no such list or does not answer: what a run's header records about the model (never a refusal).
 */
export async function listModelEntries(o: {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
}): Promise<Array<Record<string, unknown>> | null> {
  const ep = parseEndpoint(o.baseUrl);
  const headers = { authorization: `Bearer ${o.apiKey || 'not-needed'}`, accept: 'application/json', ...ep.headers };
  const u = new URL(`${ep.baseUrl}/models`);
  for (const [k, v] of Object.entries(ep.query)) u.searchParams.set(k, v);
  try {
    const a = await send(u, 'GET', headers, undefined, o.timeoutMs ?? 5_000);
    if (a.status < 200 || a.status >= 300) return null;
    const data = (JSON.parse(a.text) as { data?: unknown }).data;
    if (!Array.isArray(data)) return null;
    return data.filter((m): m is Record<string, unknown> => !!m && typeof m === 'object' && !Array.isArray(m));
  } catch {
    return null;
  }
}

/** `{"data": [{"owned_by": …}]}` → who each listed model belongs to (what the server says it is). */
function modelOwners(text: string): string[] {
  try {
    const json = JSON.parse(text) as { data?: unknown };
    if (!Array.isArray(json.data)) return [];
    return json.data
      .map((m) => (m as { owned_by?: unknown })?.owned_by)
      .filter((o): o is string => typeof o === 'string');
  } catch {
    return [];
  }
}

/** `{"data": [{"id": …}]}` → the ids, or null when the body is not such a list. */
function modelIds(text: string): string[] | null {
  try {
    const json = JSON.parse(text) as { data?: unknown };
    if (!Array.isArray(json.data)) return null;
    return json.data.map((m) => String((m as { id?: unknown })?.id ?? ''));
  } catch {
    return null;
  }
}

/** `STATUS message` as the SDK words an error answer: the server's message (any error body shape), or "(no body)". */
function statusMessage(a: HttpAnswer): string {
  const reshaped = reshapeError(a.text);
  try {
    const message = (JSON.parse(reshaped) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string' && message) return `${a.status} ${message}`;
  } catch {
    // an empty body
  }
  return `${a.status} status code (no body)`;
}

/** One request; a network failure rejects with "Connection error (CODE…)", a slow answer with "Request timed out". */
function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      { method, headers },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BYTES) req.destroy(new Error(`response body exceeds the limit of ${MAX_BYTES} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => reject(connectionError(err)));
      },
    );
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error('Request timed out'), { timedOut: true })),
      timeoutMs,
    );
    req.on('error', (err) => reject(connectionError(err)));
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}

function connectionError(err: Error & { code?: string; timedOut?: boolean }): Error {
  if (err.timedOut) return new Error('Request timed out');
  const codes: string[] = [];
  for (
    let c: (Error & { code?: string; cause?: unknown }) | undefined = err, i = 0;
    c && i < 4;
    c = c.cause as typeof c, i++
  )
    codes.push(c.code ?? c.message);
  return new Error(`Connection error (${[...new Set(codes)].join(', ')})`);
}

/** The one tool the smoke test offers. */
const SMOKE_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the current weather for a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'the city name' } },
      required: ['city'],
    },
  },
} as const;

/** What the smoke test's model produced: the call, name and raw arguments. */
export interface SmokeCall {
  name: string;
  arguments: string;
}

/**
 * `--smoke`: before a run, ask the endpoint for one tool call (one tool, a request that needs it, tool_choice auto,
 * temperature 0) and check that the answer holds a native call of that tool with JSON arguments. A server that
 * answers in text (no tool-call parser, a template without tools) or refuses the request fails here in one line,
 * instead of after hours of a run in which every case fails the same way. Not a measurement: one request.
 */
export async function smokeToolCall(o: {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  maxTokens?: number;
}): Promise<SmokeCall> {
  const ep = parseEndpoint(o.baseUrl);
  const fail = (why: string) => new EndpointUnavailable(`smoke test: model '${o.model}' at ${ep.display} ${why}`);
  const u = new URL(`${ep.baseUrl}/chat/completions`);
  for (const [k, v] of Object.entries(ep.query)) u.searchParams.set(k, v);
  const body = JSON.stringify({
    model: o.model,
    messages: [{ role: 'user', content: 'What is the weather in Paris right now? Use the get_weather tool.' }],
    tools: [SMOKE_TOOL],
    tool_choice: 'auto',
    temperature: 0,
    max_tokens: o.maxTokens ?? 256,
  });
  let a: HttpAnswer;
  try {
    a = await send(
      u,
      'POST',
      {
        authorization: `Bearer ${o.apiKey || 'not-needed'}`,
        accept: 'application/json',
        'content-type': 'application/json',
        ...ep.headers,
      },
      body,
      o.timeoutMs ?? 120_000,
    );
  } catch (err) {
    throw fail(`did not answer: ${(err as Error).message}`);
  }
  if (a.status < 200 || a.status >= 300) throw fail(`refused a request with tools: ${statusMessage(a)}`);
  let message:
    | { content?: unknown; tool_calls?: Array<{ function?: { name?: unknown; arguments?: unknown } }> }
    | undefined;
  try {
    message = (JSON.parse(a.text) as { choices?: Array<{ message?: typeof message }> }).choices?.[0]?.message;
  } catch {
    throw fail('answered with a body that is not JSON');
  }
  const call = message?.tool_calls?.[0]?.function;
  if (!call) {
    const text = typeof message?.content === 'string' ? message.content : '';
    throw fail(
      `made no tool call${text ? ` (it answered ${JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)})` : ''}: check the server's tool-call parser and chat template (vLLM: --enable-auto-tool-choice --tool-call-parser NAME; llama.cpp: --jinja), or run without --smoke`,
    );
  }
  const name = String(call.name ?? '');
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? null);
  if (name !== SMOKE_TOOL.function.name)
    throw fail(`called '${name}', not the one tool offered ('${SMOKE_TOOL.function.name}')`);
  try {
    JSON.parse(args);
  } catch {
    throw fail(`called ${name} with arguments that are not JSON: ${JSON.stringify(args.slice(0, 120))}`);
  }
  return { name, arguments: args };
}
