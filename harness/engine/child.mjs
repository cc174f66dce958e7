// The engine's child process: node-llama-cpp (llama.cpp) on one GGUF file, answering the host's requests over
// Node's IPC channel. It runs alone in its process because a GGML assert on a bad file aborts the process it runs
// in; the host (host.ts) turns that into an error answer and starts a new child on the next request.
// Plain JavaScript so it runs under bare `node` from the sources and from the package alike.
//
// Messages in:  {id, op, args} with op in tokenize | detokenize | complete | distributions | abort | close
// Messages out: {ready: true, runtime} | {ready: false, error} | {id, ok: true, result} | {id, ok: false, kind, message}
//               | {id, chunk: {text, tokens}} (complete with streaming)

import { loadLlama } from './load-llama.mjs';

const options = JSON.parse(process.env.TOOLGAUGE_ENGINE_OPTIONS ?? '{}');
const entry = process.env.TOOLGAUGE_ENGINE_ENTRY;

/** The last lines llama.cpp logged: a grammar error's detail, a load failure's reason. */
const recentLog = [];
const remember = (line) => {
  for (const l of String(line).split('\n')) if (l.trim()) recentLog.push(l.trim());
  if (recentLog.length > 40) recentLog.splice(0, recentLog.length - 40);
};

const send = (msg) => {
  if (process.connected) process.send(msg);
};
const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim().slice(0, 500);

process.on('disconnect', () => process.exit(0));

let lib;
let llama;
let model;
let context;
/** Free sequences, and requests waiting for one (arrival order). */
const free = [];
const waiting = [];
const aborted = new Set();
const grammars = new Map();

async function start() {
  const t0 = Date.now();
  lib = await import(entry);
  // Without getLlama's own test process for the binary: this process is already where a bad binary may crash.
  ({ llama } = await loadLlama(
    lib,
    {
      gpu: false,
      build: 'never',
      maxThreads: options.threads,
      logLevel: lib.LlamaLogLevel.warn,
      logger: (level, message) => {
        remember(message);
        if (level === 'error' || level === 'fatal') process.stderr.write(`${message}\n`);
      },
    },
    new URL('./', entry),
  ));
  model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 0 });
  context = await model.createContext({
    contextSize: options.contextSize,
    sequences: options.sequences,
    threads: options.threads,
    batchSize: options.batchSize,
    flashAttention: false,
  });
  for (let i = 0; i < options.sequences; i++) free.push(context.getSequence());
  const release = llama.llamaCppRelease ?? {};
  send({
    ready: true,
    runtime: {
      llamaCppBuild: release.release ? `${release.repo ?? 'llama.cpp'} ${release.release}` : undefined,
      contextSize: context.contextSize,
      loadMs: Date.now() - t0,
    },
  });
}

class RequestError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

async function withSequence(fn) {
  const seq = free.pop() ?? (await new Promise((resolve) => waiting.push(resolve)));
  try {
    return await fn(seq);
  } finally {
    const next = waiting.shift();
    if (next) next(seq);
    else free.push(seq);
  }
}

const tokenize = (text) => model.tokenize(text, true);

/** Keep the longest prefix the sequence already holds (at least one token is left to evaluate). */
async function reuse(seq, tokens, keepAtMost = tokens.length - 1) {
  const held = seq.contextTokens;
  let k = 0;
  const max = Math.min(held.length, tokens.length - 1, keepAtMost);
  while (k < max && held[k] === tokens[k]) k++;
  if (k < seq.nextTokenIndex) await seq.eraseContextTokenRanges([{ start: k, end: seq.nextTokenIndex }]);
  return tokens.slice(k);
}

async function grammarFor(text) {
  let g = grammars.get(text);
  if (!g) {
    const before = recentLog.length;
    try {
      g = await llama.createGrammar({ grammar: text });
    } catch (err) {
      const detail =
        recentLog.slice(before).find((l) => /error parsing grammar|parse:/.test(l)) ?? recentLog.slice(before).at(-1);
      throw new RequestError('grammar', `llama.cpp refused the grammar: ${oneLine(detail ?? err.message)}`);
    }
    if (grammars.size >= 32) grammars.delete(grammars.keys().next().value);
    grammars.set(text, g);
  }
  return g;
}

function topOf(probabilities, k) {
  const out = [];
  if (!probabilities || k <= 0) return out;
  for (const [token, p] of probabilities) {
    if (out.length >= k || !(p > 0)) break; // sorted: the rest are impossible tokens (grammar, bias)
    out.push({ token, text: model.detokenize([token], true), logprob: Math.log(p) });
  }
  return out;
}

/** Index where a stop string starts in `text` (the earliest), or -1. */
function stopAt(text, stops) {
  let at = -1;
  for (const s of stops) {
    const i = text.indexOf(s);
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  return at;
}

async function complete(id, req) {
  const prompt = tokenize(req.prompt);
  if (prompt.length === 0) throw new RequestError('request', 'the prompt is empty');
  if (prompt.length >= context.contextSize)
    throw new RequestError(
      'request',
      `the prompt is ${prompt.length} tokens; the context holds ${context.contextSize}`,
    );
  const grammar = req.grammar !== undefined ? await grammarFor(req.grammar) : undefined;
  let tokenBias;
  if (req.tokenBias?.length) {
    tokenBias = new lib.TokenBias(model.tokenizer);
    // TokenBias.set() of node-llama-cpp 3.21.1 silently skips end-of-generation tokens and tokenizes text without
    // special tokens; its sampler applies whatever is in the bias map, so the ids go there directly (the version
    // is pinned exactly, and this is checked).
    const map = tokenBias._biases;
    if (!(map instanceof Map))
      throw new RequestError('request', 'token bias: this node-llama-cpp build has no bias map (expected 3.21.1)');
    for (const { token, bias } of req.tokenBias) {
      const ids = typeof token === 'number' ? [token] : model.tokenize(token, true);
      for (const id of ids) {
        if (!Number.isInteger(id) || id < 0 || id >= options.vocabSize)
          throw new RequestError(
            'request',
            `token bias: token ${id} is not in the vocabulary (0 to ${options.vocabSize - 1})`,
          );
        map.set(id, bias === 'never' ? -Infinity : bias);
      }
    }
  }
  const maxTokens = Math.min(req.maxTokens ?? 256, context.contextSize - prompt.length);
  const stops = (req.stop ?? []).filter((s) => s.length > 0);
  const holdBack = Math.max(0, ...stops.map((s) => s.length - 1));
  const topK = req.topLogprobs;
  const wantProbs = topK !== undefined;
  const needsText = stops.length > 0 || Boolean(req.stream);
  return withSequence(async (seq) => {
    const generated = [];
    const logprobs = [];
    let text = '';
    let sent = 0;
    let tokensSent = 0;
    let finishReason = 'stop';
    const grammarEvaluationState = grammar ? new lib.LlamaGrammarEvaluationState({ model, grammar }) : undefined;
    const penalty = req.repeatPenalty ?? 1;
    const it = seq.evaluateWithMetadata(
      await reuse(seq, prompt),
      { probabilities: wantProbs },
      {
        temperature: req.temperature ?? 0,
        topK: req.topK ?? 0,
        topP: req.topP ?? 1,
        minP: 0,
        seed: req.seed ?? 0,
        grammarEvaluationState,
        tokenBias,
        repeatPenalty: penalty !== 1 ? { punishTokens: () => generated.slice(-64), penalty } : undefined,
      },
    );
    let cut = -1;
    for await (const step of it) {
      if (aborted.has(id)) break;
      generated.push(step.token);
      if (wantProbs) {
        const p = step.probabilities?.get(step.token);
        logprobs.push({
          token: step.token,
          text: model.detokenize([step.token], true),
          logprob: p ? Math.log(p) : -Infinity,
          top: topOf(step.probabilities, topK),
        });
      }
      // The text so far is needed only to look for a stop string or to stream it: detokenizing every prefix costs
      // time quadratic in the answer's length (4% of a 256-token answer's tokens/s), so without either it is made once.
      if (needsText) text = model.detokenize(generated, true);
      if (stops.length) {
        cut = stopAt(text, stops);
        if (cut !== -1) break;
      }
      if (req.stream) {
        // Hold back what may be the start of a stop string, and a partly decoded UTF-8 character.
        let upTo = text.length - holdBack;
        while (upTo > sent && text.charCodeAt(upTo - 1) === 0xfffd) upTo--;
        if (upTo > sent) {
          // The tokens sent are those whose text is sent: none of a held-back stop string.
          let n = tokensSent;
          while (n < generated.length && model.detokenize(generated.slice(0, n + 1), true).length <= upTo) n++;
          send({ id, chunk: { text: text.slice(sent, upTo), tokens: generated.slice(tokensSent, n) } });
          sent = upTo;
          tokensSent = n;
        }
      }
      if (generated.length >= maxTokens) {
        finishReason = 'length';
        break;
      }
    }
    if (aborted.delete(id)) throw new RequestError('request', 'the request was aborted');
    if (!needsText) text = model.detokenize(generated, true);
    let tokens = generated;
    if (cut !== -1) {
      text = text.slice(0, cut);
      finishReason = 'stop';
      // The tokens that spell the text before the stop string.
      let n = generated.length;
      while (n > 0 && model.detokenize(generated.slice(0, n), true).length > cut) n--;
      tokens = generated.slice(0, n);
      if (wantProbs) logprobs.length = n;
    }
    if (req.stream && (text.length > sent || tokens.length > tokensSent))
      send({ id, chunk: { text: text.slice(sent), tokens: tokens.slice(tokensSent) } });
    return {
      text,
      tokens,
      finishReason,
      usage: { promptTokens: prompt.length, completionTokens: generated.length },
      ...(wantProbs ? { logprobs } : {}),
    };
  });
}

async function distributions(req) {
  const prompt = tokenize(req.prompt);
  if (prompt.length === 0) throw new RequestError('request', 'the prompt is empty');
  const cont = typeof req.continuation === 'string' ? tokenize(req.continuation) : req.continuation;
  const all = [...prompt, ...cont];
  if (all.length > context.contextSize)
    throw new RequestError(
      'request',
      `prompt and continuation are ${all.length} tokens; the context holds ${context.contextSize}`,
    );
  const vocab = options.vocabSize;
  for (const t of cont)
    if (!Number.isInteger(t) || t < 0 || (vocab !== undefined && t >= vocab))
      throw new RequestError('request', `continuation token ${t} is not in the vocabulary`);
  const topK = req.topK ?? 20;
  return withSequence(async (seq) => {
    const rest = await reuse(seq, all, prompt.length - 1); // the prompt's last token must be evaluated here
    const firstStep = all.length - rest.length; // index in `all` of rest[0]
    // Temperature 0 with no top-k/top-p: the probabilities are the model's own softmax over the whole vocabulary.
    const want = { generateNext: { probabilities: true, options: { temperature: 0, topK: 0, topP: 1, minP: 0 } } };
    const items = rest.map((t, i) => (firstStep + i >= prompt.length - 1 ? [t, want] : t));
    const out = await seq.controlledEvaluate(items);
    const steps = [];
    for (let i = prompt.length - 1; i < all.length; i++) {
      const probs = out[i - firstStep]?.next?.probabilities;
      if (!probs) throw new RequestError('request', `no distribution at position ${i}`);
      const token = i + 1 < all.length ? all[i + 1] : undefined;
      const step = { top: topOf(probs, topK) };
      if (token !== undefined) {
        step.token = token;
        const p = probs.get(token);
        step.logprob = p ? Math.log(p) : -Infinity;
      }
      if (req.full) {
        const full = new Array(vocab ?? probs.size).fill(-Infinity);
        for (const [t, p] of probs) full[t] = Math.log(p);
        step.full = full;
      }
      steps.push(step);
    }
    return { promptTokens: prompt.length, tokens: cont, steps };
  });
}

async function handle(msg) {
  switch (msg.op) {
    case 'tokenize':
      return msg.args.specialTokens === false ? model.tokenize(msg.args.text, false) : tokenize(msg.args.text);
    case 'detokenize':
      return model.detokenize(msg.args.tokens, true);
    case 'complete':
      return complete(msg.id, msg.args);
    case 'distributions':
      return distributions(msg.args);
    case 'grammar':
      await grammarFor(msg.args.grammar);
      return true;
    case 'crash':
      // For the host's tests: die the way a GGML assert does.
      process.abort();
      return undefined;
    default:
      throw new RequestError('request', `unknown operation ${msg.op}`);
  }
}

process.on('message', (msg) => {
  if (msg.op === 'abort') {
    aborted.add(msg.target);
    return;
  }
  if (msg.op === 'close') {
    Promise.resolve(context?.dispose())
      .then(() => model?.dispose())
      .then(() => llama?.dispose())
      .finally(() => process.exit(0));
    return;
  }
  handle(msg).then(
    (result) => send({ id: msg.id, ok: true, result }),
    (err) => send({ id: msg.id, ok: false, kind: err.kind ?? 'request', message: oneLine(err.message ?? err) }),
  );
});

start().catch((err) => {
  const detail = recentLog.filter((l) => /error|fail|missing|key not found/i.test(l)).at(-1);
  send({
    ready: false,
    error: oneLine(`${err.message ?? err}${detail && !String(err.message).includes(detail) ? ` (${detail})` : ''}`),
  });
  setTimeout(() => process.exit(1), 50);
});
