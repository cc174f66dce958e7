// A client for Anthropic's Messages API (POST {base}/messages), speaking the same `chat(req, ctx)` as ModelClient so
// the tool loop runs unchanged: OpenAI-shaped messages and tools go out as Messages-API blocks (`tool_use`,
// `tool_result`, `input_schema`), and the answer comes back OpenAI-shaped. Retries, the deadline, the size limit and
// the usage accounting are its own (docs/maze-runs.md, "The anthropic agent").

import type { ChatMessage, OpenAITool, ToolCall } from '../core/chat.ts';
import { headerId } from '../core/ids.ts';
import { redact, redactDeep } from '../core/redact.ts';
import { parseEndpoint } from './endpoint.ts';
import { boundedFetch, FetchRefused } from './fetch.ts';
import { EndpointUnavailable } from './preflight.ts';
import { backoffMs } from './retry.ts';
import type { ModelClientOptions } from './client.ts';
import { Semaphore } from './semaphore.ts';
import { ModelCallError, type CallContext, type ChatRequest, type ChatResponse, type Usage } from './types.ts';

/** The API version every request names (the `anthropic-version` header). */
export const ANTHROPIC_VERSION = '2023-06-01';
/** `max_tokens` is required by the Messages API; sent when the run sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/**
 * The OpenAI client's options that mean the same here (baseUrl up to the version segment, as for OpenAI endpoints:
 * `https://api.anthropic.com/v1`); the Messages API has no seed, top_p default or request cache.
 */
export type AnthropicClientOptions = Pick<
  ModelClientOptions,
  | 'baseUrl'
  | 'apiKey'
  | 'model'
  | 'timeoutMs'
  | 'retries'
  | 'deadlineMs'
  | 'concurrency'
  | 'backoff'
  | 'temperature'
  | 'maxTokens'
  | 'maxResponseBytes'
>;

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string };
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/** The Messages-API body for an OpenAI-shaped request (pure; exported for tests). */
export function toMessagesBody(
  req: ChatRequest,
  o: Pick<AnthropicClientOptions, 'model' | 'temperature' | 'maxTokens'>,
): Record<string, unknown> {
  const system = req.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content ?? '')
    .join('\n\n');
  const messages: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], blocks: Block[]) => {
    if (!blocks.length) return;
    const last = messages.at(-1);
    // The API wants user and assistant turns to alternate: tool results of one turn go into one user message.
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of req.messages) {
    if (m.role === 'system') continue;
    if (m.role === 'user') push('user', [{ type: 'text', text: m.content ?? '' }]);
    else if (m.role === 'tool')
      push('user', [{ type: 'tool_result', tool_use_id: m.tool_call_id ?? '', content: m.content ?? '' }]);
    else {
      const blocks: Block[] = [];
      if (m.content) blocks.push({ type: 'text', text: m.content });
      for (const c of m.tool_calls ?? [])
        blocks.push({ type: 'tool_use', id: c.id, name: c.function.name, input: inputOf(c.function.arguments) });
      // An empty assistant turn is refused by the API; keep the turn with an empty text.
      push('assistant', blocks.length ? blocks : [{ type: 'text', text: '' }]);
    }
  }
  const tools = req.tools?.length ? req.tools.map(toolOf) : undefined;
  const temperature = req.temperature ?? o.temperature;
  return {
    model: o.model,
    max_tokens: req.maxTokens ?? o.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...(system ? { system } : {}),
    messages,
    ...(temperature !== undefined ? { temperature } : {}),
    // top_p 1 is the API's own behaviour (no nucleus cut), and some models refuse temperature and top_p together.
    ...(req.topP !== undefined && req.topP < 1 ? { top_p: req.topP } : {}),
    ...(tools
      ? {
          tools,
          tool_choice: { type: req.toolChoice === 'required' ? 'any' : req.toolChoice === 'none' ? 'none' : 'auto' },
        }
      : {}),
  };
}

function toolOf(t: OpenAITool): Record<string, unknown> {
  const p = t.function.parameters;
  return {
    name: t.function.name,
    ...(t.function.description ? { description: t.function.description } : {}),
    input_schema: p && p.type === 'object' ? p : { type: 'object', properties: {}, ...(p ?? {}) },
  };
}

/** `tool_use.input` must be an object: the history's arguments are valid JSON objects (the loop sanitizes them). */
function inputOf(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { _malformed_arguments: args };
  }
}

const count = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

/**
 * Usage as the Messages API reports it: `input_tokens` (without cache reads and writes, which are reported apart)
 * plus `cache_creation_input_tokens` and `cache_read_input_tokens` is the prompt; `output_tokens` the completion.
 */
export function usageFromMessages(u: unknown): Usage {
  const raw = (u && typeof u === 'object' ? u : {}) as Record<string, unknown>;
  const unknown: string[] = [];
  const get = (k: string, required: boolean) => {
    const n = count(raw[k]);
    if (n === null && (required || (raw[k] !== undefined && raw[k] !== null))) unknown.push(k);
    return n ?? 0;
  };
  const prompt =
    get('input_tokens', true) + get('cache_creation_input_tokens', false) + get('cache_read_input_tokens', false);
  const completion = get('output_tokens', true);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(unknown.length ? { unknown } : {}),
  };
}

/** A Messages-API response as the loop's ChatResponse fields (pure; throws SyntaxError on a malformed body). */
export function fromMessagesResponse(
  json: unknown,
): Omit<ChatResponse, 'latencyMs' | 'attempts' | 'cached' | 'retried'> {
  const r = json as {
    type?: unknown;
    content?: unknown;
    stop_reason?: unknown;
    usage?: unknown;
    model?: unknown;
  } | null;
  if (!r || typeof r !== 'object' || r.type !== 'message' || !Array.isArray(r.content))
    throw new SyntaxError('response is not a Messages-API message (type "message" with a content array)');
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  for (const b of r.content as Array<Record<string, unknown>>) {
    if (b?.type === 'text' && typeof b.text === 'string') texts.push(b.text);
    else if (b?.type === 'tool_use' && typeof b.name === 'string') {
      calls.push({
        id: typeof b.id === 'string' && b.id ? b.id : `toolu_${calls.length}`,
        type: 'function',
        function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
      });
    }
  }
  return {
    kind: 'chat',
    content: texts.length ? texts.join('') : null,
    tool_calls: calls,
    // The API's own word (`end_turn`, `tool_use`, `max_tokens`, …), kept as sent.
    finish_reason: typeof r.stop_reason === 'string' ? r.stop_reason : null,
    usage: usageFromMessages(r.usage),
    ...(typeof r.model === 'string' ? { model: r.model } : {}),
  };
}

/** One failed attempt: retried (429, 408, 5xx and 529 `overloaded_error`, timeouts, resets, bad bodies) or not. */
export interface AnthropicFailure {
  retryable: boolean;
  label: string;
  message: string;
  status?: number;
  retryAfterMs?: number;
}

export function classifyStatus(status: number, bodyText: string, retryAfter: string | null): AnthropicFailure {
  let type = '';
  let message = bodyText.slice(0, 300);
  try {
    const e = JSON.parse(bodyText) as { error?: { type?: unknown; message?: unknown } };
    if (typeof e.error?.type === 'string') type = e.error.type;
    if (typeof e.error?.message === 'string') message = e.error.message;
  } catch {
    // a plain-text error body is its own message
  }
  const retryable =
    status === 429 || status === 408 || status >= 500 || type === 'overloaded_error' || type === 'rate_limit_error';
  return {
    retryable,
    label: String(status),
    status,
    message: `${status}${type ? ` ${type}` : ''}: ${message}`,
    ...(retryAfter !== null ? { retryAfterMs: parseRetryAfter(retryAfter) } : {}),
  };
}

function parseRetryAfter(v: string): number | undefined {
  const secs = Number(v);
  if (v.trim() !== '' && Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

export class AnthropicClient {
  private readonly limit: Semaphore;
  private readonly fetch: typeof fetch;
  private readonly url: string;
  private readonly headers: Record<string, string>;
  constructor(readonly opts: AnthropicClientOptions) {
    const ep = parseEndpoint(opts.baseUrl);
    const u = new URL(`${ep.baseUrl}/messages`);
    for (const [k, v] of Object.entries(ep.query)) u.searchParams.set(k, v);
    this.url = u.toString();
    this.headers = {
      ...ep.headers,
      'content-type': 'application/json',
      accept: 'application/json',
      'anthropic-version': ANTHROPIC_VERSION,
      ...(opts.apiKey && opts.apiKey !== 'not-needed' ? { 'x-api-key': opts.apiKey } : {}),
    };
    this.limit = new Semaphore(opts.concurrency);
    this.fetch = boundedFetch(opts.maxResponseBytes ?? 32 * 2 ** 20);
  }

  async chat(req: ChatRequest, ctx: CallContext): Promise<ChatResponse> {
    const body = JSON.stringify(toMessagesBody(req, this.opts));
    return this.limit.run(async () => {
      const retried: string[] = [];
      const started = performance.now();
      for (let attempt = 0; ; attempt++) {
        const ctl = new AbortController();
        const timer = setTimeout(() => ctl.abort(new Error('request timed out')), this.opts.timeoutMs);
        let failure: AnthropicFailure;
        try {
          const res = await this.fetch(this.url, {
            method: 'POST',
            headers: { ...this.headers, ...headersFor(ctx) },
            body,
            signal: ctl.signal,
          });
          const text = await res.text();
          if (res.ok) {
            try {
              const out = redactDeep(fromMessagesResponse(JSON.parse(text)));
              return { ...out, latencyMs: performance.now() - started, attempts: attempt + 1, cached: false, retried };
            } catch (err) {
              failure = {
                retryable: true,
                label: 'invalid_response',
                message: `invalid response: ${(err as Error).message}`,
              };
            }
          } else failure = classifyStatus(res.status, text, res.headers.get('retry-after'));
        } catch (err) {
          const e = err as Error;
          failure = ctl.signal.aborted
            ? { retryable: true, label: 'timeout', message: `no complete response within ${this.opts.timeoutMs} ms` }
            : e instanceof FetchRefused
              ? { retryable: false, label: 'client', message: e.message }
              : { retryable: true, label: 'connection', message: connectionMessage(e) };
        } finally {
          clearTimeout(timer);
        }
        const b = this.opts.backoff ?? { baseMs: 500, maxMs: 20_000 };
        const wait = backoffMs(attempt, { ...b, retryAfterMs: failure.retryAfterMs });
        const pastDeadline =
          this.opts.deadlineMs !== undefined && performance.now() - started + wait > this.opts.deadlineMs;
        if (!failure.retryable || attempt >= this.opts.retries || pastDeadline) {
          throw new ModelCallError(
            redact(`endpoint failed after ${attempt + 1} attempt(s): ${failure.message}`),
            failure.retryable ? failure.label : 'client',
            attempt + 1,
            failure.status,
          );
        }
        retried.push(failure.label);
        await new Promise((r) => setTimeout(r, wait));
      }
    });
  }
}

function connectionMessage(e: Error): string {
  const causes: string[] = [];
  for (let c = (e as { cause?: unknown }).cause, i = 0; c && i < 3; c = (c as { cause?: unknown }).cause, i++) {
    const x = c as { code?: string; message?: string };
    const what = x.code ?? x.message;
    if (what && what !== e.message && !causes.includes(what)) causes.push(what);
  }
  return causes.length ? `${e.message} (${causes.join(', ')})` : e.message;
}

function headersFor(ctx: CallContext): Record<string, string> {
  const sep = ctx.instance.indexOf(':');
  const instance =
    sep < 0 ? headerId(ctx.instance) : `${ctx.instance.slice(0, sep)}:${headerId(ctx.instance.slice(sep + 1))}`;
  return {
    'x-toolgauge-instance': instance,
    ...(ctx.agent !== undefined ? { 'x-toolgauge-agent': ctx.agent } : {}),
    ...(ctx.trial !== undefined ? { 'x-toolgauge-trial': String(ctx.trial) } : {}),
  };
}

export type { ChatMessage };

/**
 * The Messages-API endpoint answers before a run: GET {base}/models with the API's headers (the Models API lists
 * what the key may use). A closed port or a refused key is one line with the URL (credentials hidden) and the cause.
 */
export async function checkAnthropicEndpoint(o: {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
}): Promise<void> {
  const ep = parseEndpoint(o.baseUrl);
  const u = new URL(`${ep.baseUrl}/models`);
  for (const [k, v] of Object.entries(ep.query)) u.searchParams.set(k, v);
  const headers = {
    ...ep.headers,
    accept: 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
    ...(o.apiKey && o.apiKey !== 'not-needed' ? { 'x-api-key': o.apiKey } : {}),
  };
  let res: Response;
  try {
    res = await boundedFetch(8 * 2 ** 20)(u.toString(), {
      headers,
      signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
    });
  } catch (err) {
    throw new EndpointUnavailable(redact(`endpoint ${ep.display} is not usable: ${connectionMessage(err as Error)}`));
  }
  if (!res.ok)
    throw new EndpointUnavailable(
      redact(`endpoint ${ep.display} is not usable: ${classifyStatus(res.status, await res.text(), null).message}`),
    );
}
