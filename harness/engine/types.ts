// The engine interface: one local inference engine (llama.cpp embedded through node-llama-cpp) run in a child
// process, spoken to with raw-text prompts. Callers (the OpenAI-compatible server, the probe's decode-time axes,
// the quantization damage figure) render chat templates themselves; the engine never guesses a template.

import type { GgufFacts } from './gguf/reader.ts';

/** The exact node-llama-cpp release toolgauge is tested with (newer builds are not served for every platform). */
export const NODE_LLAMA_CPP_VERSION = '3.21.1';

/** The engine's name as reports print it. */
export const ENGINE_NAME = `llama.cpp via node-llama-cpp ${NODE_LLAMA_CPP_VERSION}`;

/** The one line every engine entry point fails with when node-llama-cpp cannot be loaded. */
export const ENGINE_MISSING_MESSAGE =
  `node-llama-cpp ${NODE_LLAMA_CPP_VERSION} is not installed (it is needed only for gguf: models and \`toolgauge serve\`): ` +
  'run `npm run setup:engine` in a checkout, or `npm install node-llama-cpp@3.21.1` beside toolgauge';

/** Why an engine request failed. `crash`: the child process died (the next request starts a new one). */
export type EngineErrorKind = 'missing' | 'load' | 'crash' | 'grammar' | 'request' | 'closed' | 'timeout';

/** Every failure of the engine is one of these, with a one-line message. */
export class EngineError extends Error {
  override name = 'EngineError';
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** How to start an engine on one GGUF file. */
export interface EngineOptions {
  /** The GGUF file. */
  modelPath: string;
  /** CPU threads for llama.cpp; default 1 (on 2 shared cores, 2 threads were slower under load). */
  threads?: number;
  /** Context size in tokens (explicit: node-llama-cpp would otherwise size it from free memory); default 2048. */
  contextSize?: number;
  /**
   * Parallel sequences in the one context; default 1. Up to this many `complete` / `nextTokenDistributions`
   * requests run at once; more wait in the child's queue in arrival order. Each sequence may hold up to
   * `contextSize` tokens (prompt + output).
   */
  sequences?: number;
  /** Batch size for prompt evaluation; default min(contextSize, 512). */
  batchSize?: number;
  /** Kill and restart the child when one request takes longer than this (ms); default none. */
  requestTimeoutMs?: number;
}

/** What the engine says about the loaded file: the header's facts (gguf/reader.ts) and the loaded engine's own. */
export interface EngineInfo extends GgufFacts {
  /** `llama.cpp via node-llama-cpp 3.21.1`. */
  engine: string;
  /** llama.cpp's build id / release tag node-llama-cpp was built from, when it tells (e.g. "b6xxx"). */
  llamaCppBuild?: string;
  /** The context size the engine runs with. */
  contextSize: number;
  sequences: number;
  threads: number;
  /** Milliseconds the child took to load the model (after the process started). */
  loadMs: number;
}

/**
 * A bias on tokens: by id, or by text (every token the text tokenizes to, special-token texts parsed: `'<|im_end|>'`
 * is that one token). End-of-generation tokens can be biased too (a large negative bias keeps the model talking).
 */
export interface TokenBiasEntry {
  token: number | string;
  /** Added to the token's logit (as OpenAI's `logit_bias`); `'never'` forbids the token unless a grammar requires it. */
  bias: number | 'never';
}

/** One raw-text completion. */
export interface CompleteRequest {
  /**
   * The raw prompt text; special tokens written in it (e.g. `<|im_start|>`) are parsed as special tokens. Nothing
   * is added: no BOS unless the text has it (rendered chat templates write `bos_token` themselves).
   */
  prompt: string;
  /** A GBNF grammar (llama.cpp's grammar format); output is constrained to it. An invalid grammar is a `grammar` error. */
  grammar?: string;
  tokenBias?: TokenBiasEntry[];
  /** Seed of the sampler; same seed, prompt and settings → same output. Default 0. */
  seed?: number;
  /** 0 = greedy. Default 0. */
  temperature?: number;
  topP?: number;
  topK?: number;
  /** 1 = off. Default 1. */
  repeatPenalty?: number;
  /** Default 256. */
  maxTokens?: number;
  /** Stop strings; the text ends before the first one found (not included). */
  stop?: string[];
  /** When set (0..20), `logprobs` holds, per generated token, its logprob and the top-k alternatives (zero-probability ones left out). */
  topLogprobs?: number;
}

export interface TokenLogprob {
  token: number;
  /** The token's text (may be part of a UTF-8 character). */
  text: string;
  /**
   * Natural log of its probability. In `complete`: in the distribution the token was drawn from, after the grammar
   * and the bias (and, above temperature 0, temperature, top-k and top-p); at temperature 0 with neither grammar
   * nor bias, the model's own softmax. In `nextTokenDistributions`: always the model's own softmax.
   * `-Infinity` for a token that distribution forbids.
   */
  logprob: number;
}

export interface GeneratedTokenLogprob extends TokenLogprob {
  /** The top-k tokens of the model's distribution at this step, most likely first. */
  top: TokenLogprob[];
}

export interface CompleteResult {
  text: string;
  /** The generated token ids (the stop string's tokens excluded when a stop string ended it). */
  tokens: number[];
  /** `stop`: an end-of-generation token, a stop string, or the grammar's end; `length`: maxTokens reached. */
  finishReason: 'stop' | 'length';
  usage: { promptTokens: number; completionTokens: number };
  logprobs?: GeneratedTokenLogprob[];
}

/**
 * Text and tokens as they are generated (for streaming answers). Text that may be the start of a stop string or
 * of a UTF-8 character is held back until it is not; `tokens` are the ones generated since the last chunk. The
 * chunks' texts joined equal the result's text.
 */
export interface CompleteChunk {
  text: string;
  tokens: number[];
}

/** How a completion is delivered. */
export interface CompleteOptions {
  /** Called with the text as it is generated (a stream). */
  onChunk?: (chunk: CompleteChunk) => void;
  /** Aborts the completion (a `request` error "the request was aborted"), freeing its sequence. */
  signal?: AbortSignal;
  /**
   * The caller's own boundary has already held this request to the engine's rules (request-check.ts), so the
   * engine does not check it again: toolgauge serve, whose body schemas (harness/serve/request.ts) admit only
   * requests within them (harness/serve/sampling.test.ts). Unset, every request is checked.
   */
  checked?: boolean;
}

/** Teacher forcing: the model's next-token distribution at each step of a given continuation. */
export interface DistributionsRequest {
  prompt: string;
  /**
   * Text (tokenized on its own, special-token texts parsed as special tokens; empty: only the distribution after
   * the prompt) or token ids.
   */
  continuation: string | number[];
  /** How many of the most likely tokens to return per step; default 20. */
  topK?: number;
  /** Also return the full distribution (every vocabulary entry's logprob) per step: only for small vocabularies. */
  full?: boolean;
}

export interface DistributionStep {
  /** The continuation token this step predicts (absent on the last step, which predicts what follows). */
  token?: number;
  /** The model's logprob of that token. */
  logprob?: number;
  /** The most likely tokens, most likely first. */
  top: TokenLogprob[];
  /** Every token's logprob, indexed by token id (only with `full`). */
  full?: number[];
}

export interface DistributionsResult {
  promptTokens: number;
  /** The continuation's tokens. */
  tokens: number[];
  /** `tokens.length + 1` steps: step i predicts tokens[i]; the last predicts the token after the continuation. */
  steps: DistributionStep[];
}

/** The engine as callers use it. `EngineHost` (host.ts) implements it over a child process. */
export interface Engine {
  info(): Promise<EngineInfo>;
  /** Token ids of a text; `specialTokens` (default true) parses special-token texts as their tokens. */
  tokenize(text: string, opts?: { specialTokens?: boolean }): Promise<number[]>;
  detokenize(tokens: number[]): Promise<string>;
  /** One completion; `signal` aborts it (a `request` error "the request was aborted"), freeing its sequence. */
  complete(req: CompleteRequest, opts?: CompleteOptions): Promise<CompleteResult>;
  nextTokenDistributions(req: DistributionsRequest): Promise<DistributionsResult>;
  /** Compile a GBNF grammar with llama.cpp's parser without generating: resolves, or rejects with a `grammar` error. */
  checkGrammar(grammar: string): Promise<void>;
  /** Whether a request now starts at once, with no process to start or model to load first; absent: always. */
  loaded?(): boolean;
  /** Stop the child; pending requests are rejected with a `closed` error. Idempotent. */
  close(): Promise<void>;
}
