// One BFCL case on a real endpoint (or the simulator): BFCL's inference loop (runBfclCase) over the project's model
// client, BFCL's verdict on the result it produced (checkCase), and toolgauge's view beside it (beyondBfcl). The
// conversation is kept whole for the trace: each request carries the conversation so far, so the last request
// plus its reply is all of it.
import type { ChatMessage } from '../core/chat.ts';
import type { PyValue } from '../core/pyliteral/index.ts';
import type { ModelClient } from '../model/client.ts';
import type { Sampling } from '../model/types.ts';
import { beyondBfcl, type Beyond } from './beyond.ts';
import type { BfclCase } from './data.ts';
import type { ResultFormat } from './decode.ts';
import type { BfclExecutor } from './executor.ts';
import { runBfclCase, type AskModel } from './loop.ts';
import { checkCase, type BfclVerdict } from './score.ts';

export interface BfclRunDeps {
  client: Pick<ModelClient, 'chat'>;
  mode: 'fc' | 'prompt';
  /** BFCL's model name: it names the multi-turn instances (`<model>_<id>_<Class>_instance`). */
  modelName: string;
  trial: number;
  /** Multi-turn cases only. */
  executor?: BfclExecutor;
  /** The trial's sampling (temperature, max tokens, seed), as the kit hands it out. */
  sampling?: Sampling;
}

export interface BfclUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface BfclRunOutcome {
  /** The `result` BFCL would write in its result file. */
  result: PyValue;
  format: ResultFormat;
  verdict: BfclVerdict;
  /** Absent when BFCL's verdict is undecided here (nothing to compare it with). */
  beyond: Beyond | undefined;
  messages: ChatMessage[];
  requests: number;
  usage: BfclUsage;
  wallMs: number;
}

/** The output format BFCL's checker decodes for a mode. */
export const formatOf = (mode: 'fc' | 'prompt'): ResultFormat => (mode === 'fc' ? 'fc' : 'pythonic');

export async function runBfclInstance(c: BfclCase, deps: BfclRunDeps): Promise<BfclRunOutcome> {
  const started = performance.now();
  const usage: BfclUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  let requests = 0;
  let messages: ChatMessage[] = [];
  const ask: AskModel = async (msgs, tools) => {
    requests++;
    const r = await deps.client.chat(
      { messages: msgs, tools, ...deps.sampling },
      { instance: `bfcl:${c.id}`, trial: deps.trial },
    );
    usage.prompt_tokens += r.usage.prompt_tokens;
    usage.completion_tokens += r.usage.completion_tokens;
    usage.total_tokens += r.usage.total_tokens;
    const reply = { content: r.content, ...(r.tool_calls.length ? { tool_calls: r.tool_calls } : {}) };
    messages = [...msgs, { role: 'assistant', ...reply }];
    return reply;
  };
  const underscoreToDot = deps.mode === 'fc';
  const format = formatOf(deps.mode);
  const result = await runBfclCase(c, ask, { mode: deps.mode, executor: deps.executor, modelName: deps.modelName });
  const verdict = await checkCase(c, result, {
    format,
    underscoreToDot,
    executor: deps.executor,
    modelName: deps.modelName,
  });
  const beyond = verdict.undecided ? undefined : beyondBfcl(c, result, format, verdict, { underscoreToDot });
  return {
    result,
    format,
    verdict,
    beyond,
    messages,
    requests,
    usage,
    wallMs: Math.round(performance.now() - started),
  };
}

/** BFCL sanitises model names into directory and instance names the same way: `/` becomes `_`. */
export const bfclModelName = (model: string): string => model.replace(/\//g, '_');
