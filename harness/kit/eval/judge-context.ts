// What a judged scorer needs from the run, handed to it on `ScoreArgs.judge` by the eval's suite: the client of
// its judge model (the run's endpoint and model unless the scorer names others), the request context of the case,
// and where its record goes (the case's trace, and the run's judge totals apart from the task model's).

import type { RunConfig } from '../../core/config.ts';
import { registerSecret } from '../../core/redact.ts';
import { judgeClientOptions } from '../judge-client-options.ts';
import { ModelClient } from '../../model/client.ts';
import type { Usage } from '../../model/types.ts';
import { EVAL_JUDGE_ROUTE } from '../../sim/eval-judge.ts';
import { isSimModel } from '../../sim/policy-spec.ts';
import type { JudgeVerdict } from './judge-verdict.ts';

/** Judge requests go to the simulator's judge route (`x-toolgauge-instance: _judge:<eval>:<case>`), never an eval's. */
const JUDGE_ROUTE = EVAL_JUDGE_ROUTE;

export interface JudgeEndpoint {
  /** The judge model (default: the run's `--model`). */
  model?: string;
  /** Its OpenAI-compatible endpoint (default: the run's; a `sim:` judge: the run's simulator when it started one). */
  baseUrl?: string;
  /** Its key (default: the run's key when the endpoint is the run's, else none: a key never goes to another host). */
  apiKey?: string;
}

/** What one judge request left: kept in the case's trace under `judges.<scorer>`. */
export interface JudgeRecord {
  model: string;
  prompt: { system: string; user: string };
  /** The reply as given (null when the request failed). */
  reply: string | null;
  verdict: JudgeVerdict | null;
  score: number | null;
  /** Why there is no verdict: the request failed, or the reply holds none that reads. */
  error: string | null;
  usage?: Usage;
}

export interface JudgeContext {
  run: RunConfig;
  /** The client of a judge model (one per endpoint, model and key in the process). */
  client(endpoint: JudgeEndpoint): ModelClient;
  /** The request context of this case: the judge route, the case and the trial. */
  call: { instance: string; agent: 'judge'; trial: number };
  /** This trial's seed (the run's seed + the trial), sent with every judge request. */
  seed: number | undefined;
  /** Keep a scorer's judge record (trace, usage totals). */
  record(scorer: string, r: JudgeRecord): void;
}

/** A judge gave no verdict: the case is an error naming the scorer, never a pass or a fail. */
export class JudgeError extends Error {
  override readonly name = 'JudgeError';
}

export function isJudgeError(err: unknown): err is JudgeError {
  return err instanceof Error && err.name === 'JudgeError';
}

const clients = new Map<string, ModelClient>();

/** The judge context of one case and trial, and what its scorers recorded once they are done. */
export function judgeCase(o: {
  run: RunConfig;
  simUrl: string | undefined;
  suite: string;
  id: string;
  trial: number;
  seed: number | undefined;
}): { context: JudgeContext; records: Record<string, JudgeRecord>; usage(): Usage | undefined } {
  const records: Record<string, JudgeRecord> = {};
  const context: JudgeContext = {
    run: o.run,
    client: (e) => judgeClient(o.run, o.simUrl, e),
    call: { instance: `${JUDGE_ROUTE}:${o.suite}:${o.id}`, agent: 'judge', trial: o.trial },
    seed: o.seed,
    record: (scorer, r) => {
      records[scorer] = r;
    },
  };
  return { context, records, usage: () => sumUsage(Object.values(records).flatMap((r) => (r.usage ? [r.usage] : []))) };
}

/** The endpoint a judge asks: its own, else a `sim:` judge's simulator, else the run's. */
export function judgeBaseUrl(run: RunConfig, simUrl: string | undefined, e: JudgeEndpoint): string {
  const model = e.model ?? run.model;
  const url = e.baseUrl ?? (isSimModel(model) && simUrl ? simUrl : (run.baseUrl ?? simUrl));
  if (!url) throw new Error(`the judge '${model}' has no endpoint: give it a baseUrl, or run with --base-url`);
  return url;
}

function judgeClient(run: RunConfig, simUrl: string | undefined, e: JudgeEndpoint): ModelClient {
  const model = e.model ?? run.model;
  const baseUrl = judgeBaseUrl(run, simUrl, e);
  registerSecret(e.apiKey);
  const apiKey = e.apiKey ?? (baseUrl === run.baseUrl ? run.apiKey : undefined);
  const key = JSON.stringify([baseUrl, model, apiKey ?? null, run.concurrency, run.cache, run.cacheDir]);
  let c = clients.get(key);
  if (!c) {
    const simulated = isSimModel(model);
    c = new ModelClient(judgeClientOptions(run, { baseUrl, apiKey, model, simulated }));
    clients.set(key, c);
  }
  return c;
}

/** Token counts added up; undefined when there is nothing to add. */
export function sumUsage(us: readonly Usage[]): Usage | undefined {
  if (!us.length) return undefined;
  return {
    prompt_tokens: us.reduce((s, u) => s + u.prompt_tokens, 0),
    completion_tokens: us.reduce((s, u) => s + u.completion_tokens, 0),
    total_tokens: us.reduce((s, u) => s + u.total_tokens, 0),
  };
}
