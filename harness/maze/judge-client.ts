// The LLM judge's request: its endpoint (the same defaults as the other second-model flags), one client per
// endpoint and model for the process, and one judged run. An unreachable judge or a reply without a valid verdict
// is a judge error on that run, recorded as such — never a pass, and never the run's own harness error.

import type { RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { judgeClientOptions } from '../kit/judge-client-options.ts';
import { ModelClient } from '../model/client.ts';
import type { Usage } from '../model/types.ts';
import { isSimModel } from '../sim/policy-spec.ts';
import type { MazeConfig } from './config.ts';
import { buildJudgePrompt, parseLlmVerdict, type JudgePromptInput, type LlmJudgeRecord } from './llm-judge.ts';

/**
 * The judge's endpoint: `--judge-base-url`; else a `sim:` judge asks the simulator; else the run's own `--base-url`
 * (as `--reflection-model` does). A real judge model with neither is a usage error.
 */
export function judgeEndpoint(
  run: Pick<RunConfig, 'baseUrl'>,
  m: Pick<MazeConfig, 'judgeModel' | 'judgeBaseUrl'>,
  simUrl: string | undefined,
): string | undefined {
  if (!m.judgeModel) return undefined;
  if (m.judgeBaseUrl) return m.judgeBaseUrl;
  if (isSimModel(m.judgeModel)) return simUrl;
  if (!run.baseUrl)
    throw new UsageError(
      `--judge-model '${m.judgeModel}' needs an endpoint: pass --judge-base-url (or --base-url), or use sim:judge`,
    );
  return run.baseUrl;
}

/** Whether the judge is answered by the simulator this run starts (a `sim:` judge without `--judge-base-url`). */
export function judgeUsesSimulator(m: Pick<MazeConfig, 'judgeModel' | 'judgeBaseUrl'>): boolean {
  return !!m.judgeModel && !m.judgeBaseUrl && isSimModel(m.judgeModel);
}

const clients = new Map<string, ModelClient>();

/**
 * The process's client for this judge: the model layer's client, with the run's concurrency and request cache (its
 * requests carry the judge's model, so their cache keys never meet the agent's; `--cache replay` replays them).
 */
export function judgeClient(run: RunConfig, m: MazeConfig, simUrl: string | undefined): ModelClient {
  const baseUrl = judgeEndpoint(run, m, simUrl);
  if (!baseUrl) throw new Error('the LLM judge has no endpoint: the simulator was not started for it');
  const key = [baseUrl, m.judgeModel, run.concurrency, run.cache, run.cacheDir].join('\u0000');
  let c = clients.get(key);
  if (!c) {
    const simulated = isSimModel(m.judgeModel!) && !m.judgeBaseUrl;
    c = new ModelClient(judgeClientOptions(run, { baseUrl, apiKey: run.apiKey, model: m.judgeModel!, simulated }));
    clients.set(key, c);
  }
  return c;
}

const REPLY_CAP = 4000;

/** Ask the judge about one run (temperature 0, top_p 1, the run's seed) and read its verdict. Never throws. */
export async function askLlmJudge(
  client: ModelClient,
  input: JudgePromptInput,
  ctx: { trial: number; seed: number },
): Promise<LlmJudgeRecord> {
  const { system, user } = buildJudgePrompt(input);
  const model = client.opts.model;
  let reply: string | null = null;
  let usage: Usage | undefined;
  try {
    const r = await client.chat(
      {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        temperature: 0,
        topP: 1,
        seed: ctx.seed,
      },
      { instance: `maze:${input.task.id}:${input.mode}`, agent: 'judge', trial: ctx.trial },
    );
    reply = r.content ?? '';
    usage = r.usage;
  } catch (err) {
    return {
      model,
      label: null,
      verdict: null,
      error: `judge request failed: ${(err as Error).message.split('\n')[0]}`,
      reply: null,
    };
  }
  const parsed = parseLlmVerdict(reply);
  const kept =
    reply.length > REPLY_CAP ? `${reply.slice(0, REPLY_CAP)}… [${reply.length - REPLY_CAP} more characters]` : reply;
  if (!parsed.ok)
    return { model, label: null, verdict: null, error: parsed.error, reply: kept, ...(usage ? { usage } : {}) };
  return {
    model,
    label: parsed.verdict.label,
    verdict: parsed.verdict,
    error: null,
    reply: kept,
    ...(usage ? { usage } : {}),
  };
}
