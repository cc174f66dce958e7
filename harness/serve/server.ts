/**
 * `toolgauge serve`'s HTTP surface: an OpenAI-compatible server over one engine (llama.cpp through node-llama-cpp, in
 * a child process — harness/engine), or one engine per parallel slot (a request stuck inside llama.cpp then holds
 * only its own slot's process). Routes: GET /v1/models (with the file's facts under `meta`), GET /health,
 * POST /tokenize and /detokenize (llama-server's),
 * POST /v1/chat/completions (the GGUF's own chat template, tool calls parsed into `tool_calls`, tool_choice auto /
 * none / required / named) and POST /v1/completions (a raw prompt); toolgauge's own GET /toolgauge/engine (the
 * engine's facts and settings) and POST /toolgauge/distributions (teacher-forced next-token distributions, for a
 * run's test workers: harness/serve/served-engine.ts). Bodies are checked with zod (request.ts); the
 * engine's crash is a 500 naming it, and the next request runs on a restarted engine.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  checkHostAndOrigin,
  checkJsonContentType,
  FrontRefusal,
  parseJsonBody,
  readBoundedBody,
} from '../core/http-front.ts';
import { sendJson } from '../core/http-json.ts';
import {
  EngineError,
  type CompleteResult,
  type Engine,
  type EngineInfo,
  type GeneratedTokenLogprob,
} from '../engine/types.ts';
import { DistributionsRequestSchema } from '../engine/request-check.ts';
import { detectFamily } from '../templates/index.ts';
import { chatPrompt, readReply, type TemplateInfo } from './chat.ts';
import { chatConstraint, completionConstraint } from './constraint.ts';
import { generate } from './generate.ts';
import { checkTokenIds } from './limits.ts';
import {
  ChatBody,
  checkCommon,
  CompletionBody,
  DetokenizeBody,
  HttpError,
  parseBody,
  TokenizeBody,
} from './request.ts';
import { chatSampling, completionPrompt, completionSampling } from './sampling.ts';
import { QueueFull, Slots } from './slots.ts';

export interface ServeOptions {
  /**
   * The engine, or one per parallel slot: a request runs (tokenizes, generates, detokenizes) on its slot's engine
   * only, so one stuck inside llama.cpp holds that engine's process and no other slot's. All serve the same file.
   */
  engine: Engine | readonly Engine[];
  /** The name /v1/models lists (requests may name any model: one file is served). */
  alias: string;
  host?: string;
  port?: number;
  parallel?: number;
  /** Requests waiting beyond the parallel ones; default 256. */
  queue?: number;
  /** Largest request body, bytes; default 16 MiB. */
  maxBodyBytes?: number;
  /**
   * A request's deadline from its arrival, ms (queue wait included); default 300 000. Past it the request is
   * stopped — its generation aborted, the engine restarted if it does not stop — and answered 504.
   */
  requestTimeoutMs?: number;
}

/** The routes that take a JSON body. */
type PostRoute = 'tokenize' | 'detokenize' | 'chat' | 'completion' | 'distributions';
const POST_ROUTES: Record<string, PostRoute> = {
  '/tokenize': 'tokenize',
  '/detokenize': 'detokenize',
  '/toolgauge/distributions': 'distributions',
  '/v1/chat/completions': 'chat',
  '/chat/completions': 'chat',
  '/v1/completions': 'completion',
  '/completions': 'completion',
};

export interface ServeHandle {
  /** Base URL including `/v1`. */
  url: string;
  port: number;
  info: EngineInfo;
  close(): Promise<void>;
}

/** The engine facts /v1/models carries under `meta` (what a run's report header names). */
export function engineMeta(info: EngineInfo): Record<string, unknown> {
  return {
    engine: info.engine,
    llama_cpp_build: info.llamaCppBuild ?? null,
    file: info.file,
    sha256: info.sha256,
    tensor_type: info.tensorType,
    chat_template_sha256: info.chatTemplateSha256 ?? null,
    test_model: info.testModel,
    context_size: info.contextSize,
    sequences: info.sequences,
    threads: info.threads,
  };
}

export async function startServe(o: ServeOptions): Promise<ServeHandle> {
  const engines: readonly Engine[] = Array.isArray(o.engine) ? o.engine : [o.engine as Engine];
  // Every engine starts now (a file that does not load fails here, once); the facts are the first one's.
  const [first] = await Promise.all(engines.map((e) => e.info()));
  // The sequences the server generates with: each engine's, times the engines.
  const info: EngineInfo = { ...first!, sequences: first!.sequences * engines.length };
  const template: TemplateInfo | null = info.chatTemplate
    ? {
        source: info.chatTemplate,
        family: detectFamily(info.chatTemplate),
        bosToken: info.bosToken,
        eosToken: info.eosToken,
      }
    : null;
  const engineOf = (slot: number) => engines[slot % engines.length]!;
  const slots = new Slots(o.parallel ?? info.sequences, o.queue ?? 256, (slot) => engineOf(slot).loaded?.() ?? true);
  const maxBody = o.maxBodyBytes ?? 16 * 2 ** 20;
  const deadlineMs = o.requestTimeoutMs ?? 300_000;
  let seq = 0;
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    checkHostAndOrigin(req, port, o.host);
    const path = (req.url ?? '').split('?')[0]!.replace(/\/+$/, '');
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: o.alias, object: 'model', owned_by: 'toolgauge-serve', meta: engineMeta(info) }],
      });
    }
    if (req.method === 'GET' && path === '/health') return sendJson(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/toolgauge/engine') return sendJson(res, 200, info);
    const route = POST_ROUTES[path];
    if (!route) throw new HttpError(404, `no route ${req.method} ${path}`);
    if (req.method !== 'POST') throw new HttpError(405, `${path} takes POST`);
    checkJsonContentType(req);
    // The request stops at its deadline or when its client goes away, wherever it is: queued, or generating.
    const stop = new AbortController();
    const timer = setTimeout(() => {
      stop.abort(
        new HttpError(504, `the request took longer than ${deadlineMs} ms (the server's deadline)`, 'timeout'),
      );
      if (!req.complete) req.destroy(); // a body still trickling in holds nothing further
    }, deadlineMs);
    res.once('close', () => {
      if (!res.writableFinished) stop.abort(new HttpError(499, 'the client closed the connection'));
    });
    try {
      // The queue first: a waiting request holds a socket, not its body (read, parsed and rendered in its slot).
      return await slots.run(async (slot) => {
        try {
          return await serveRoute(engineOf(slot), route, req, res, stop.signal);
        } catch (err) {
          throw stop.signal.aborted ? stop.signal.reason : err;
        }
      }, stop.signal);
    } finally {
      clearTimeout(timer);
    }
  };

  const serveRoute = async (
    engine: Engine,
    route: PostRoute,
    req: IncomingMessage,
    res: ServerResponse,
    signal: AbortSignal,
  ) => {
    const json = parseJsonBody(await readBoundedBody(req, maxBody));
    // llama-server's tokenizer routes: special-token texts are parsed as special tokens.
    if (route === 'tokenize') {
      const b = parseBody(TokenizeBody, json);
      return sendJson(res, 200, {
        tokens: await engine.tokenize(b.content, { specialTokens: b.parse_special ?? true }),
      });
    }
    if (route === 'detokenize') {
      const b = parseBody(DetokenizeBody, json);
      checkTokenIds('tokens', b.tokens, info.vocabSize);
      return sendJson(res, 200, { content: await engine.detokenize(b.tokens) });
    }
    if (route === 'distributions') {
      // JSON has no infinities: a token the distribution forbids (-Infinity) travels as null (served-engine.ts)
      return sendJson(res, 200, await engine.nextTokenDistributions(parseBody(DistributionsRequestSchema, json)));
    }
    const id = `${Date.now().toString(36)}${(seq++).toString(36)}`;
    const created = Math.floor(Date.now() / 1000);
    if (route === 'chat') {
      const b = parseBody(ChatBody, json);
      checkCommon(b);
      if (!template)
        throw new HttpError(
          400,
          `${info.file} has no chat template (tokenizer.chat_template): use /v1/completions with a raw prompt`,
        );
      const constraint = chatConstraint(b, template.family);
      const prompt = chatPrompt(template, b);
      const s = chatSampling(b, info);
      if (constraint.triggers && s.topLogprobs !== undefined)
        throw new HttpError(400, "invalid field 'logprobs': not supported together with a lazy grammar");
      if (!prompt) throw new HttpError(400, `${info.file}'s chat template rendered an empty prompt`);
      // Checked once, at this boundary: the body's schema and sampling.ts admit only requests the engine accepts.
      const r = await generate(engine, prompt, constraint, s, { signal, checked: true });
      const message = readReply(template, b, r.text, id);
      return sendJson(res, 200, {
        id: `chatcmpl-${id}`,
        object: 'chat.completion',
        created,
        model: b.model ?? o.alias,
        choices: [
          {
            index: 0,
            message,
            logprobs: s.topLogprobs !== undefined ? chatLogprobs(r) : null,
            finish_reason: r.finishReason === 'length' ? 'length' : message.tool_calls ? 'tool_calls' : 'stop',
          },
        ],
        usage: usage(r),
      });
    }
    const b = parseBody(CompletionBody, json);
    checkCommon(b);
    const constraint = completionConstraint(b);
    const prompt = completionPrompt(b);
    const s = completionSampling(b, info);
    if (constraint.triggers && s.topLogprobs !== undefined)
      throw new HttpError(400, "invalid field 'logprobs': not supported together with a lazy grammar");
    const r = await generate(engine, prompt, constraint, s, { signal, checked: true });
    return sendJson(res, 200, {
      id: `cmpl-${id}`,
      object: 'text_completion',
      created,
      model: b.model ?? o.alias,
      choices: [
        {
          index: 0,
          text: r.text,
          logprobs: s.topLogprobs !== undefined ? completionLogprobs(r) : null,
          finish_reason: r.finishReason,
        },
      ],
      usage: usage(r),
    });
  };

  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const e = toHttpError(err);
      if (res.headersSent || res.destroyed) return void res.destroy();
      // A refused body may still be arriving: the answer closes the connection rather than read it to its end.
      const headers = e.status === 413 ? { ...e.headers, connection: 'close' } : e.headers;
      sendJson(res, e.status, { error: { message: e.message, type: e.type, code: e.status } }, headers);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  port = addr.port;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host}:${addr.port}/v1`,
    port: addr.port,
    info,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      await Promise.all(engines.map((e) => e.close()));
    },
  };
}

const usage = (r: CompleteResult) => ({
  prompt_tokens: r.usage.promptTokens,
  completion_tokens: r.usage.completionTokens,
  total_tokens: r.usage.promptTokens + r.usage.completionTokens,
});

const bytes = (s: string) => [...Buffer.from(s, 'utf8')];

function chatLogprobs(r: CompleteResult) {
  return {
    content: (r.logprobs ?? []).map((t: GeneratedTokenLogprob) => ({
      token: t.text,
      logprob: t.logprob,
      bytes: bytes(t.text),
      top_logprobs: t.top.map((a) => ({ token: a.text, logprob: a.logprob, bytes: bytes(a.text) })),
    })),
  };
}

function completionLogprobs(r: CompleteResult) {
  const steps = r.logprobs ?? [];
  const offsets: number[] = [];
  let at = 0;
  for (const t of steps) {
    offsets.push(at);
    at += t.text.length;
  }
  return {
    tokens: steps.map((t) => t.text),
    token_logprobs: steps.map((t) => t.logprob),
    top_logprobs: steps.map((t) => Object.fromEntries(t.top.map((a) => [a.text, a.logprob]))),
    text_offset: offsets,
  };
}

/** What the client is told about a failure: its own mistakes 4xx, a full queue 503, the engine's crash 500. */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof FrontRefusal) return new HttpError(err.status, err.message);
  if (err instanceof QueueFull)
    return new HttpError(503, `server busy: ${err.message}; retry later`, 'server_busy', { 'retry-after': '1' });
  if (err instanceof EngineError) {
    switch (err.kind) {
      case 'crash':
        return new HttpError(
          500,
          `engine crashed: ${err.message} (the engine restarts for the next request)`,
          'engine_crash',
        );
      case 'grammar':
        return new HttpError(400, `grammar rejected by llama.cpp: ${err.message}`);
      case 'request':
        return new HttpError(400, err.message);
      case 'timeout':
        return new HttpError(504, `engine timeout: ${err.message}`, 'engine_timeout');
      case 'closed':
        return new HttpError(503, `engine closed: ${err.message}`, 'engine_closed');
      default:
        return new HttpError(500, `engine error (${err.kind}): ${err.message}`, 'engine_error');
    }
  }
  return new HttpError(500, `internal error: ${(err as Error)?.message ?? String(err)}`);
}
