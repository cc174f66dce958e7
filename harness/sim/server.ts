import { SIMULATOR_OWNER } from './owner.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { z } from 'zod';
import type { ChatMessage, OpenAITool, ToolCall } from '../core/chat.ts';
import { sha256, stableStringify } from '../core/hash.ts';
import {
  checkHostAndOrigin,
  checkJsonContentType,
  FrontRefusal,
  parseJsonBody,
  readBoundedBody,
  sendRefusal,
} from '../core/http-front.ts';
import { sendJson } from '../core/http-json.ts';
import { EVAL_JUDGE_ROUTE, simEvalJudgeReply } from './eval-judge.ts';
import { EVAL_NAME, EvalRegistration, MAX_EVALS } from './eval-cases.ts';
import { evalResponder, type EvalResponder } from './eval-responder.ts';
import { pickFault } from './faults.ts';
import { HttpError } from './http-error.ts';
import { chatBodyOfMessages, MessagesRequest, messagesError, messagesResponse } from './messages-api.ts';
import { parsePolicySpec, type PolicySpec } from './policy-spec.ts';
import { sendChatStream } from './stream.ts';

/** The next assistant message a responder gives. */
export interface SimReply {
  content: string | null;
  tool_calls?: ToolCall[];
  /** Default: `tool_calls` when there are calls, else `stop` (`length`: the output ran into its budget). */
  finish_reason?: 'stop' | 'length' | 'tool_calls';
}

/** A completions answer: the text, or the text with its finish reason (`length` when cut off). */
export type SimCompletion = string | { text: string; finish_reason: 'stop' | 'length' };

export interface SimCallContext {
  instance: string;
  agent: string;
  trial: number;
}

export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: OpenAITool[];
}

/** Who is asking, from the request headers: the instance (`<suite>:<id>`), agent, trial and variant. */
export interface SimRequestContext extends SimCallContext {
  id: string;
  variant?: string;
}

/** A suite's responder: the next assistant message (chat) or raw text (completions) for one request. */
export interface Responder {
  chat?(spec: PolicySpec, body: ChatBody, ctx: SimRequestContext): SimReply | Promise<SimReply>;
  /** `body` is the whole request (server-specific fields such as a grammar included). */
  completion?(
    spec: PolicySpec,
    prompt: string,
    ctx: SimRequestContext,
    body?: Record<string, unknown>,
  ): SimCompletion | Promise<SimCompletion>;
  /**
   * Which of the suite's instances a request is about, read from the request itself (the question, the offered
   * tools), so a runner that sends no toolgauge header — the reference runner, anyone's — is answered too. Returns
   * the id as `headerId` gives it, or undefined when the request is not this suite's.
   */
  identify?(body: ChatBody): string | undefined | Promise<string | undefined>;
  /**
   * The agent a request without the `x-toolgauge-agent` header is answered as (seeded policies draw per agent), so
   * another runner's request gets the draw toolgauge's own would; default `0`.
   */
  agentOf?(body: ChatBody): string | undefined;
}

export interface SimServerOptions {
  /**
   * Each suite's behaviour, keyed by the instance prefix (`toolhop:…`). Suites register their own responders —
   * they know their gold data, handed over in process, never read from a request.
   */
  responders?: Record<string, Responder>;
  /** Policy used when the request's model is not `sim:…` (`toolgauge sim --policy`). */
  defaultPolicy?: string;
  port?: number;
  /** Largest request body, bytes; default 64 MiB (a larger one is a 413, never read whole). */
  maxBodyBytes?: number;
  /**
   * Told of every request the simulator cannot answer — no known instance, no responder for the suite it names, no
   * chat or completions responder — with the status it answered (`toolgauge sim` prints each).
   */
  onUnmatched?: (message: string, status: number) => void;
}

export interface SimServer {
  /** Base URL including `/v1`. */
  url: string;
  port: number;
  /** `unmatched`: requests refused because the simulator cannot answer them (`onUnmatched`). */
  stats: { requests: number; unmatched: number; faults: Record<string, number> };
  close(): Promise<void>;
}

const ChatBodySchema = z
  .object({
    model: z.string(),
    messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']) }).passthrough()).min(1),
    tools: z
      .array(z.object({ type: z.literal('function'), function: z.object({ name: z.string() }).passthrough() }))
      .optional(),
  })
  .passthrough();
/** A chat request's streaming fields (anything else: a whole JSON answer). */
const StreamOptions = z.object({
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
});
const CompletionBodySchema = z.object({ model: z.string(), prompt: z.string() }).passthrough();

/**
 * The answer to a request that names no known instance: 422, a client error, so no OpenAI client retries it (a
 * miss is deterministic; 429, 408 and 5xx are retried) and every one raises it at once, so a runner that
 * lets a failed request fail records an error for the row. See docs/cli.md, "The simulator for other runners".
 */
export const UNMATCHED_STATUS = 422;

export { HttpError };

/** A request refused by the routing itself: counted and reported where it is made. */
class Refused extends HttpError {}

/** Every answer of the simulator carries this header, so a client can tell who answered. */
export const SIMULATOR_HEADER = 'x-toolgauge-simulator';

export async function startSimServer(opts: SimServerOptions = {}): Promise<SimServer> {
  // Judged scorers' requests (harness/sim/eval-judge.ts) are answered by every simulator, beside the suites' own.
  const responders: Record<string, Responder> = { [EVAL_JUDGE_ROUTE]: evalJudgeResponder, ...opts.responders };
  // The describeEval runs' cases, registered over HTTP (eval-cases.ts); a suite's responder keeps its name.
  const evals = new Map<string, EvalResponder>();
  const attempts = new Map<string, number>();
  const hung = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const stats = { requests: 0, unmatched: 0, faults: {} as Record<string, number> };
  const maxBody = opts.maxBodyBytes ?? 64 * 2 ** 20;
  let port = 0;
  /** A JSON body of a POST route, read through the front (content type, size bound). */
  const readJson = async (req: IncomingMessage): Promise<unknown> => {
    checkJsonContentType(req);
    return parseJsonBody(await readBoundedBody(req, maxBody));
  };
  /** sim:flaky's fault for this request body: the same body's attempts draw in turn (seeded), counted in stats. */
  const drawFault = (spec: { rate: number; seed: number }, json: unknown) => {
    const key = sha256(stableStringify(json));
    const attempt = attempts.get(key) ?? 0;
    attempts.set(key, attempt + 1);
    const fault = pickFault(spec.rate, spec.seed, key, attempt);
    if (fault !== 'none') stats.faults[fault] = (stats.faults[fault] ?? 0) + 1;
    return fault;
  };

  /** A request the simulator cannot answer: counted, reported, and answered with `status`. */
  const refuse = (status: number, message: string, body: unknown): HttpError => {
    stats.unmatched++;
    opts.onUnmatched?.(`${message}; first user message: ${JSON.stringify(firstUserText(body).slice(0, 160))}`, status);
    return new Refused(status, message);
  };
  /** The responder a routed request goes to: a suite's, else a registered eval's. */
  const responderOf = (suite: string): Responder | undefined => responders[suite] ?? evals.get(suite);
  /** Every responder for content identification: the suites' first, then the evals'. */
  const allResponders = (): Record<string, Responder> => ({ ...responders, ...Object.fromEntries(evals) });
  /** Content identification: the header's suite (or eval) alone when it has a responder, else every responder. */
  const route = async (body: ChatBody, instance: string | undefined): Promise<string | undefined> => {
    const headerSuite = instance?.includes(':') ? instance.slice(0, instance.indexOf(':')) : undefined;
    if (headerSuite === undefined) return identify(allResponders(), body);
    // An eval case named by the header is that case (two cases may share an input).
    const ev = responders[headerSuite] ? undefined : evals.get(headerSuite);
    if (ev?.knows(instance!.slice(headerSuite.length + 1))) return instance;
    const known = responderOf(headerSuite) !== undefined;
    return (await identify(allResponders(), body, known ? headerSuite : undefined)) ?? instance;
  };

  const registerEval = async (req: IncomingMessage, res: ServerResponse, name: string) => {
    if (!EVAL_NAME.test(name)) throw new HttpError(400, `simulator: '${name}' is not an eval name`);
    if (responders[name]) throw new HttpError(409, `simulator: '${name}' is a suite's name; an eval cannot take it`);
    if (!evals.has(name) && evals.size >= MAX_EVALS)
      throw new HttpError(413, `simulator: ${MAX_EVALS} evals registered already`);
    const parsed = EvalRegistration.safeParse(await readJson(req));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HttpError(400, `invalid eval registration: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    evals.set(name, evalResponder(name, parsed.data.cases));
    return sendJson(res, 200, { eval: name, cases: parsed.data.cases.length });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    checkHostAndOrigin(req, port);
    stats.requests++;
    const path = (req.url ?? '').split('?')[0]!.replace(/\/+$/, '');
    const evalPath = /\/toolgauge\/evals\/([^/]+)$/.exec(path);
    if (req.method === 'POST' && evalPath) return registerEval(req, res, decodeURIComponent(evalPath[1]!));
    if (req.method === 'GET' && path.endsWith('/models')) {
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: opts.defaultPolicy ?? 'sim:oracle', object: 'model', owned_by: SIMULATOR_OWNER }],
      });
    }
    // Anthropic's Messages API: the same responders behind its own request and answer shapes (sim/messages-api.ts).
    if (req.method === 'POST' && path.endsWith('/messages')) return handleMessages(req, res);
    const isChat = req.method === 'POST' && path.endsWith('/chat/completions');
    const isCompletion = req.method === 'POST' && !isChat && path.endsWith('/completions');
    if (!isChat && !isCompletion) throw new HttpError(404, `no route ${req.method} ${path}`);

    const json = await readJson(req);
    const parsed = (isChat ? ChatBodySchema : CompletionBodySchema).safeParse(json);
    if (!parsed.success)
      throw new HttpError(
        400,
        `invalid request: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
      );
    const body = parsed.data as { model: string };
    let spec: PolicySpec;
    try {
      spec = parsePolicySpec(body.model.startsWith('sim:') ? body.model : (opts.defaultPolicy ?? 'sim:oracle'));
    } catch (err) {
      throw new HttpError(400, (err as Error).message);
    }
    // `<suite>:<id>` with the id as `headerId` (core/ids.ts) gives it; responders key their tables the same way.
    const instance = header(req, 'x-toolgauge-instance');
    // The request's own content first (any runner), the header as a fallback (toolgauge's own hint). A header that
    // names a suite with a responder limits the content to that suite (a reflection prompt quoting ToolHop questions
    // is the optimizer's, not a ToolHop row's); one that names none leaves every responder to recognise it.
    const routed = isChat ? await route(body as unknown as ChatBody, instance) : instance;
    if (!routed?.includes(':'))
      throw refuse(
        UNMATCHED_STATUS,
        'simulator: this request matches no registered suite instance (no known question in its messages, and no x-toolgauge-instance header)',
        json,
      );
    const suite = routed.slice(0, routed.indexOf(':'));
    const ctx = requestContext(req, routed, () =>
      isChat ? responderOf(suite)?.agentOf?.(body as unknown as ChatBody) : undefined,
    );

    if (spec.latencyMs > 0) await sleep(spec.latencyMs);
    if (spec.name === 'flaky') {
      const fault = drawFault(spec, json);
      if (fault !== 'none') {
        if (fault === 'rate_limit')
          return sendJson(
            res,
            429,
            { error: { message: 'simulated rate limit', type: 'rate_limit' } },
            { 'retry-after': '0' },
          );
        if (fault === 'server_error')
          return sendJson(res, 500, { error: { message: 'simulated server error', type: 'server_error' } });
        if (fault === 'hang') {
          hung.add(res);
          res.on('close', () => hung.delete(res));
          return; // never answer; the client's timeout must fire
        }
        const full = JSON.stringify(chatResponse(body.model, { content: '<answer>truncated</answer>' }, 0, 0));
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(full.slice(0, Math.floor(full.length / 2)));
      }
    }

    const responder = responderOf(suite);
    if (!responder) throw refuse(UNMATCHED_STATUS, `simulator: no suite or eval '${suite}' registered`, json);
    if (isChat) {
      if (!responder.chat) throw refuse(UNMATCHED_STATUS, `simulator: suite '${suite}' has no chat responder`, json);
      const chat = body as unknown as ChatBody;
      const reply = await responder.chat(spec, chat, ctx);
      const completion = chatResponse(
        body.model,
        reply,
        approxTokens(JSON.stringify(chat.messages)),
        approxTokens(JSON.stringify(reply)),
      );
      // A streaming client gets the same answer framed as server-sent events (sim/stream.ts).
      const streamed = StreamOptions.safeParse(json);
      if (streamed.success && streamed.data.stream)
        return sendChatStream(res, completion, streamed.data.stream_options?.include_usage === true);
      return sendJson(res, 200, completion);
    }
    if (!responder.completion)
      throw refuse(UNMATCHED_STATUS, `simulator: suite '${suite}' has no completions responder`, json);
    const prompt = (body as unknown as { prompt: string }).prompt;
    const answer = await responder.completion(spec, prompt, ctx, body as unknown as Record<string, unknown>);
    const { text, finish_reason } = typeof answer === 'string' ? { text: answer, finish_reason: 'stop' } : answer;
    return sendJson(res, 200, {
      id: `cmpl-sim-${stats.requests}`,
      object: 'text_completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, text, finish_reason, logprobs: null }],
      usage: usage(approxTokens(prompt), approxTokens(text)),
    });
  };

  const handleMessages = async (req: IncomingMessage, res: ServerResponse) => {
    let json: unknown;
    try {
      json = await readJson(req);
    } catch (err) {
      if (!(err instanceof FrontRefusal) || err.status !== 400) throw err;
      return sendJson(res, 400, messagesError('invalid_request_error', err.message));
    }
    if (!header(req, 'anthropic-version'))
      return sendJson(res, 400, messagesError('invalid_request_error', 'anthropic-version: header is required'));
    const parsed = MessagesRequest.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return sendJson(res, 400, messagesError('invalid_request_error', `${issue.path.join('.')}: ${issue.message}`));
    }
    const body = parsed.data;
    let spec: PolicySpec;
    try {
      spec = parsePolicySpec(body.model.startsWith('sim:') ? body.model : (opts.defaultPolicy ?? 'sim:oracle'));
    } catch (err) {
      return sendJson(res, 400, messagesError('invalid_request_error', (err as Error).message));
    }
    const chat = chatBodyOfMessages(body);
    const instance = header(req, 'x-toolgauge-instance');
    const routed = await route(chat, instance);
    if (!routed?.includes(':')) {
      const e = refuse(404, 'simulator: this request matches no registered suite instance', chat);
      return sendJson(res, e.status, messagesError('not_found_error', e.message));
    }
    const suite = routed.slice(0, routed.indexOf(':'));
    const ctx = requestContext(req, routed, () => responderOf(suite)?.agentOf?.(chat));
    if (spec.latencyMs > 0) await sleep(spec.latencyMs);
    if (spec.name === 'flaky') {
      const fault = drawFault(spec, json);
      if (fault !== 'none') {
        if (fault === 'rate_limit')
          return sendJson(res, 429, messagesError('rate_limit_error', 'simulated rate limit'), { 'retry-after': '0' });
        // The API's 529: overloaded; any other fault is answered the same way here (the client's retry is what is tried).
        return sendJson(res, 529, messagesError('overloaded_error', 'simulated overload'));
      }
    }
    const responder = responderOf(suite);
    if (!responder?.chat) {
      const e = refuse(404, `simulator: no suite or eval '${suite}' with a chat responder`, chat);
      return sendJson(res, e.status, messagesError('not_found_error', e.message));
    }
    const reply = await responder.chat(spec, chat, ctx);
    return sendJson(
      res,
      200,
      messagesResponse(
        body.model,
        reply,
        approxTokens(JSON.stringify(body.messages)),
        approxTokens(JSON.stringify(reply)),
        stats.requests,
      ),
    );
  };

  const server: Server = createServer((req, res) => {
    res.setHeader(SIMULATOR_HEADER, '1');
    handle(req, res).catch((err) => {
      if (err instanceof FrontRefusal)
        return sendRefusal(res, err, { error: { message: err.message, type: 'simulator_error' } });
      const status = err instanceof HttpError ? err.status : 500;
      // A responder that cannot answer a request it was given (an unknown row, a policy it does not play) refuses it too.
      if (status === UNMATCHED_STATUS && !(err instanceof Refused)) {
        stats.unmatched++;
        opts.onUnmatched?.((err as Error).message, status);
      }
      if (!res.headersSent)
        sendJson(res, status, { error: { message: (err as Error).message, type: 'simulator_error' } });
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A port in use is the caller's error to report, not an unhandled 'error' event that ends the process.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hung) res.destroy();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const evalJudgeResponder: Responder = {
  chat(spec, body) {
    const content = simEvalJudgeReply(spec, body.messages);
    if (content === undefined)
      throw new HttpError(422, 'simulator: a judge request without a <candidate_answer> section');
    return { content };
  },
};

function chatResponse(model: string, reply: SimReply, promptTokens: number, completionTokens: number) {
  const calls = reply.tool_calls ?? [];
  return {
    id: `chatcmpl-sim-${Math.random().toString(36).slice(2, 10)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.content, ...(calls.length ? { tool_calls: calls } : {}) },
        finish_reason: reply.finish_reason ?? (calls.length ? 'tool_calls' : 'stop'),
        logprobs: null,
      },
    ],
    usage: usage(promptTokens, completionTokens),
  };
}

function usage(prompt: number, completion: number) {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A rough token count (4 characters per token), so usage fields are plausible and non-zero. */
function approxTokens(s: string): number {
  return Math.max(1, Math.ceil(s.length / 4));
}

/** `<suite>:<id>` of the first responder (of `only`, when given) that recognises the request, if any. */
async function identify(
  responders: Record<string, Responder>,
  body: ChatBody,
  only?: string,
): Promise<string | undefined> {
  for (const [suite, r] of Object.entries(responders)) {
    if (only !== undefined && suite !== only) continue;
    const id = await r.identify?.(body);
    if (id !== undefined) return `${suite}:${id}`;
  }
  return undefined;
}

function firstUserText(body: unknown): string {
  const messages = (body as { messages?: Array<{ role?: unknown; content?: unknown }>; prompt?: unknown }).messages;
  const user = messages?.find((m) => m.role === 'user')?.content ?? (body as { prompt?: unknown }).prompt;
  return typeof user === 'string' ? user : JSON.stringify(user ?? '');
}

/**
 * Who a routed request (`suite:id`) is for: the instance, and the agent, trial and variant its x-toolgauge-* headers
 * name; without an agent header, the suite's guess from the body (`agentOf`), else agent 0.
 */
function requestContext(req: IncomingMessage, routed: string, agentOf: () => string | undefined): SimRequestContext {
  return {
    instance: routed,
    id: routed.slice(routed.indexOf(':') + 1),
    agent: header(req, 'x-toolgauge-agent') ?? agentOf() ?? '0',
    trial: Number(header(req, 'x-toolgauge-trial') ?? 0),
    variant: header(req, 'x-toolgauge-variant'),
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
