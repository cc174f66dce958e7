import type OpenAI from 'openai';
import type { z } from 'zod';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ChatMessage, ToolCall } from '../core/chat.ts';
import { RequestCache, type CacheMode } from './cache.ts';
import { parseEndpoint } from './endpoint.ts';
import { headerId } from '../core/ids.ts';
import { redact, redactDeep } from '../core/redact.ts';
import { boundedFetch } from './fetch.ts';
import { backoffMs, classifyFailure, isRetryable } from './retry.ts';
import { Semaphore } from './semaphore.ts';
import {
  CachedChat,
  CachedCompletion,
  ModelCallError,
  usageFromEndpoint,
  type CallContext,
  type ChatRequest,
  type ChatResponse,
  type CompletionRequest,
  type CompletionResponse,
  type Sampling,
} from './types.ts';

export interface ModelClientOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Whole-request time limit (headers and body), per attempt. */
  timeoutMs: number;
  /** Retries after the first attempt, for 429 / 5xx / timeouts / connection resets / unparseable bodies. */
  retries: number;
  /** All attempts together, backoff included (default: unbounded). */
  deadlineMs?: number;
  concurrency: number;
  cache?: { mode: CacheMode; dir: string };
  backoff?: { baseMs: number; maxMs: number };
  /** Default generation settings, recorded in reports. */
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  extraBody?: Record<string, unknown>;
  /** Largest response body accepted (a hostile endpoint can send gigabytes); default 32 MiB. */
  maxResponseBytes?: number;
}

/**
 * The one client for any OpenAI-compatible endpoint. The SDK's own retries are off: this wrapper retries
 * everything transient (including a body cut off mid-JSON, which the SDK treats as fatal) under one policy, and
 * bounds the whole request — the SDK's timeout stops at the response headers, a hung body would wait forever.
 */
export class ModelClient {
  private readonly options: ConstructorParameters<typeof OpenAI>[0];
  private client: Promise<OpenAI> | undefined;
  private readonly limit: Semaphore;
  private readonly cache: RequestCache;
  constructor(readonly opts: ModelClientOptions) {
    const ep = parseEndpoint(opts.baseUrl);
    this.options = {
      baseURL: ep.baseUrl,
      apiKey: opts.apiKey || 'not-needed',
      maxRetries: 0,
      timeout: opts.timeoutMs,
      defaultHeaders: ep.headers,
      defaultQuery: ep.query,
      fetch: boundedFetch(opts.maxResponseBytes ?? 32 * 2 ** 20),
    };
    this.limit = new Semaphore(opts.concurrency);
    this.cache = new RequestCache(opts.cache?.mode ?? 'off', opts.cache?.dir ?? '.cache/requests');
  }

  /**
   * The SDK (about 80 modules) loads with the first request: a process that only holds a client — a run's main
   * process, whose suites import the runtime — never loads it.
   */
  private sdk(): Promise<OpenAI> {
    return (this.client ??= import('openai').then(({ default: SDK }) => new SDK(this.options)));
  }

  get inFlight(): number {
    return this.limit.inFlight;
  }

  async chat(req: ChatRequest, ctx: CallContext): Promise<ChatResponse> {
    const body = {
      model: this.opts.model,
      messages: req.messages as ChatCompletionCreateParamsNonStreaming['messages'],
      ...this.sampling(req),
      ...(req.tools && req.tools.length ? { tools: req.tools, tool_choice: req.toolChoice ?? 'auto' } : {}),
      ...this.extra(req),
    } as ChatCompletionCreateParamsNonStreaming;
    return this.withPolicy('chat', body, ctx, CachedChat, async (sdk, signal) => {
      const r = await sdk.chat.completions.create(body, { signal, headers: requestHeaders(ctx) });
      const choice = r.choices?.[0];
      if (!choice) throw new SyntaxError('response has no choices');
      const toolCalls: ToolCall[] = (choice.message.tool_calls ?? [])
        .filter((tc) => tc.type === 'function')
        .map((tc, i) => ({
          id: tc.id || `tool_call_${i}`,
          type: 'function' as const,
          function: { name: tc.function.name, arguments: tc.function.arguments ?? '' },
        }));
      return {
        kind: 'chat' as const,
        content: choice.message.content ?? null,
        tool_calls: toolCalls,
        finish_reason: choice.finish_reason ?? null,
        usage: usageFromEndpoint(r.usage),
        model: r.model,
      };
    });
  }

  async completion(req: CompletionRequest, ctx: CallContext): Promise<CompletionResponse> {
    const body = {
      model: this.opts.model,
      prompt: req.prompt,
      ...this.sampling(req),
      ...(req.stop ? { stop: req.stop } : {}),
      ...this.extra(req),
    };
    return this.withPolicy('completion', body, ctx, CachedCompletion, async (sdk, signal) => {
      const r = await sdk.completions.create(body, { signal, headers: requestHeaders(ctx) });
      const choice = r.choices?.[0];
      if (!choice) throw new SyntaxError('response has no choices');
      return {
        kind: 'completion' as const,
        text: choice.text ?? '',
        finish_reason: choice.finish_reason ?? null,
        usage: usageFromEndpoint(r.usage),
        model: r.model,
      };
    });
  }

  /** The OpenAI sampling fields of a request: the request's own values, else the client's defaults. */
  private sampling(req: Sampling) {
    const maxTokens = req.maxTokens ?? this.opts.maxTokens;
    const topP = req.topP ?? this.opts.topP;
    const seed = req.seed ?? this.opts.seed;
    return {
      temperature: req.temperature ?? this.opts.temperature ?? 0,
      ...(topP !== undefined ? { top_p: topP } : {}),
      ...(maxTokens ? { max_tokens: maxTokens } : {}),
      ...(seed !== undefined ? { seed } : {}),
    };
  }

  /** Server-specific fields, last (they are part of the request cache key like everything else in the body). */
  private extra(req: Sampling): Record<string, unknown> {
    return { ...this.opts.extraBody, ...req.extraBody };
  }

  private async withPolicy<T extends CachedChat | CachedCompletion>(
    kind: 'chat' | 'completion',
    body: unknown,
    ctx: CallContext,
    schema: z.ZodType<T>,
    send: (sdk: OpenAI, signal: AbortSignal) => Promise<T>,
  ): Promise<T & { latencyMs: number; attempts: number; cached: boolean; retried: string[] }> {
    // The key hashes the whole request: computed only when the cache is in use (it costs as much as the request).
    const key =
      this.cache.mode === 'off' ? '' : this.cache.key(kind, { body, variant: ctx.variant ?? null }, ctx.trial ?? 0);
    if (this.cache.mode === 'replay') {
      const hit = this.cache.get(key, schema);
      if (!hit) throw new ModelCallError(`request cache miss in replay mode (${ctx.instance})`, 'cache_miss', 0);
      return { ...hit, latencyMs: 0, attempts: 0, cached: true, retried: [] };
    }
    // Loaded before any attempt's clock starts: loading the SDK is no part of a request's time limit.
    const sdk = await this.sdk();
    return this.limit.run(async () => {
      const retried: string[] = [];
      const started = performance.now();
      for (let attempt = 0; ; attempt++) {
        const ctl = new AbortController();
        const timer = setTimeout(() => ctl.abort(new Error('request timed out')), this.opts.timeoutMs);
        try {
          const out = redactResponse(await send(sdk, ctl.signal));
          this.cache.put(key, body, out);
          return { ...out, latencyMs: performance.now() - started, attempts: attempt + 1, cached: false, retried };
        } catch (err) {
          const f = ctl.signal.aborted
            ? { kind: 'timeout' as const, message: `no complete response within ${this.opts.timeoutMs} ms` }
            : classifyFailure(err);
          const label = 'status' in f && f.status ? String(f.status) : f.kind;
          const b = this.opts.backoff ?? { baseMs: 500, maxMs: 20_000 };
          const wait = backoffMs(attempt, { ...b, retryAfterMs: 'retryAfterMs' in f ? f.retryAfterMs : undefined });
          const pastDeadline =
            this.opts.deadlineMs !== undefined && performance.now() - started + wait > this.opts.deadlineMs;
          if (!isRetryable(f.kind) || attempt >= this.opts.retries || pastDeadline) {
            throw new ModelCallError(
              redact(
                `endpoint failed after ${attempt + 1} attempt(s)${pastDeadline && attempt < this.opts.retries ? ` (request deadline of ${this.opts.deadlineMs} ms)` : ''}: ${labelled(label, f.message)}`,
              ),
              f.kind,
              attempt + 1,
              'status' in f ? f.status : undefined,
            );
          }
          retried.push(label);
          await sleep(wait);
        } finally {
          clearTimeout(timer);
        }
      }
    });
  }
}

/** The failure's label before its message, unless the message already starts with it (the SDK's `400 bad request`). */
function labelled(label: string, message: string): string {
  return message === label || message.startsWith(`${label} `) ? message : `${label}: ${message}`;
}

/**
 * An endpoint may echo a key back (in content, arguments, tool call ids, finish_reason, the model name): every
 * string of a response is redacted where it enters.
 */
function redactResponse<T extends CachedChat | CachedCompletion>(r: T): T {
  return redactDeep(r);
}

function instanceHeader(instance: string): string {
  const sep = instance.indexOf(':');
  return sep < 0 ? headerId(instance) : `${instance.slice(0, sep)}:${headerId(instance.slice(sep + 1))}`;
}

/** The headers that tell the simulator and the cache which case a request is about (also sent by the adapters' SDKs). */
export function requestHeaders(ctx: CallContext): Record<string, string> {
  return {
    // `<suite>:<id>`, the id hashed when it is long or not plain (data never goes into a header verbatim).
    'x-toolgauge-instance': instanceHeader(ctx.instance),
    ...(ctx.agent !== undefined ? { 'x-toolgauge-agent': ctx.agent } : {}),
    ...(ctx.trial !== undefined ? { 'x-toolgauge-trial': String(ctx.trial) } : {}),
    ...(ctx.variant !== undefined ? { 'x-toolgauge-variant': ctx.variant } : {}),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export type { ChatMessage };
