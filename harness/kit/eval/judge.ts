// LLM-judged scorers: `scorers.judge({ rubric })` asks a judge model whether the case's answer meets the rubric,
// `scorers.factuality()` whether it agrees with the expected answer. The judge is any OpenAI-compatible chat model
// reached through the kit's ModelClient (retries, timeouts, the request cache); by default the run's own endpoint
// and model. Its prompt, reply and verdict go to the case's trace; a failed request or a reply without a readable
// verdict is a judge error (JudgeError): the case is an error naming the scorer, never a pass or a fail.

import type { ChatMessage } from '../../core/chat.ts';
import type { ModelClient } from '../../model/client.ts';
import type { Usage } from '../../model/types.ts';
import { type JudgeContext, type JudgeEndpoint, JudgeError, type JudgeRecord } from './judge-context.ts';
import { buildJudgePrompt } from './judge-prompt.ts';
import { parseJudgeReply } from './judge-verdict.ts';
import type { ScoreArgs, Scorer, TaskOutput } from './types.ts';

export interface JudgeOptions<TInput = unknown, TExpected = unknown, TOutput = TaskOutput> extends JudgeEndpoint {
  /** What the judge checks, in plain words ("The answer is polite and gives a date"). */
  rubric: string;
  /** The metric's name (default `judge`). */
  name?: string;
  /** The reference answer shown to the judge (default: the case's `expected`; none when it has none). */
  expected?: (args: ScoreArgs<TInput, TExpected, TOutput>) => unknown;
  /** The answer judged (default: `toolLoop`'s `answer`, else the output as JSON). */
  answer?: (args: ScoreArgs<TInput, TExpected, TOutput>) => string;
  /** A case with no reference answer is unscored (null) rather than judged without one (default false). */
  requireExpected?: boolean;
  /** The judge's output budget (default: the endpoint's). */
  maxTokens?: number;
}

export type FactualityOptions<TInput = unknown, TExpected = unknown, TOutput = TaskOutput> = Omit<
  JudgeOptions<TInput, TExpected, TOutput>,
  'rubric' | 'requireExpected'
> & { rubric?: string };

/** The factuality preset's rubric: does the answer agree with the reference on the facts the question asks for? */
export const FACTUALITY_RUBRIC = `Compare the factual content of the candidate answer with the reference answer, ignoring differences of style, wording, grammar, punctuation and formatting.
Pass when the candidate states the facts of the reference answer that the question asks for, and nothing it says contradicts the reference: it may add consistent detail or say the same in other words.
Fail when the candidate contradicts the reference, leaves out the fact the question asks for, or gives a different answer.`;

/** A scorer graded by a judge model against a rubric. */
export function judgeScorer<TInput = unknown, TExpected = unknown, TOutput = TaskOutput>(
  o: JudgeOptions<TInput, TExpected, TOutput>,
  kind = 'judge',
): Scorer<TInput, TExpected, TOutput> {
  if (typeof o.rubric !== 'string' || !o.rubric.trim())
    throw new TypeError(`scorers.${kind}: rubric must be a non-empty string`);
  const name = o.name ?? kind;
  return {
    name,
    async score(args) {
      const j = args.judge;
      if (!j) throw new Error(`scorers.${kind} runs inside describeEval (it needs ScoreArgs.judge, the run's judge)`);
      const want = o.expected ? o.expected(args) : args.expected;
      const reference = want === undefined || want === null ? null : asText(want);
      if (reference === null && o.requireExpected)
        return { score: null, reason: 'no expected answer to judge against' };
      const prompt = buildJudgePrompt({
        criteria: o.rubric,
        question: questionOf(args.input),
        reference,
        candidate: o.answer ? o.answer(args) : answerOf(args.output),
      });
      const endpoint = { model: o.model, baseUrl: o.baseUrl, apiKey: o.apiKey };
      const r = await askJudge(() => j.client(defined(endpoint)), prompt, j, o.maxTokens);
      j.record(name, r);
      if (r.error !== null || r.verdict === null || r.score === null) throw new JudgeError(`judge error: ${r.error}`);
      return { score: r.score, reason: `${r.verdict.verdict}: ${r.verdict.reason}` };
    },
  };
}

/** The factuality preset: the answer agrees with the case's expected answer (unscored when there is none). */
export function factualityScorer<TInput = unknown, TExpected = unknown, TOutput = TaskOutput>(
  o: FactualityOptions<TInput, TExpected, TOutput> = {},
): Scorer<TInput, TExpected, TOutput> {
  return judgeScorer({ ...o, rubric: o.rubric ?? FACTUALITY_RUBRIC, requireExpected: true }, 'factuality');
}

/** Ask the judge once (temperature 0, the trial's seed) and read its verdict. Never throws. */
async function askJudge(
  client: () => ModelClient,
  prompt: { system: string; user: string },
  j: JudgeContext,
  maxTokens: number | undefined,
): Promise<JudgeRecord> {
  let model = j.run.model;
  let reply: string;
  let usage: Usage | undefined;
  try {
    const c = client();
    model = c.opts.model;
    const res = await c.chat(
      {
        messages: [
          { role: 'system', content: prompt.system },
          { role: 'user', content: prompt.user },
        ],
        temperature: 0,
        ...(j.seed !== undefined ? { seed: j.seed } : {}),
        ...(maxTokens !== undefined ? { maxTokens } : {}),
      },
      j.call,
    );
    reply = res.content ?? '';
    usage = res.usage;
  } catch (err) {
    const error = `judge request failed: ${(err as Error).message.split('\n')[0]}`;
    return { model, prompt, reply: null, verdict: null, score: null, error };
  }
  const parsed = parseJudgeReply(reply);
  const base = { model, prompt, reply, ...(usage ? { usage } : {}) };
  return parsed.ok
    ? { ...base, verdict: parsed.verdict, score: parsed.score, error: null }
    : { ...base, verdict: null, score: null, error: parsed.error };
}

function defined(e: JudgeEndpoint): JudgeEndpoint {
  return Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined));
}

function asText(x: unknown): string {
  return typeof x === 'string' ? x : JSON.stringify(x);
}

/** The question as the judge reads it: the input, or a conversation's last user message. */
function questionOf(input: unknown): string {
  if (typeof input === 'string') return input;
  if (Array.isArray(input)) {
    const users = (input as ChatMessage[]).filter((m) => m?.role === 'user');
    const last = users.at(-1)?.content;
    if (typeof last === 'string') return last;
  }
  return JSON.stringify(input ?? null);
}

function answerOf(out: unknown): string {
  const o = out as Partial<TaskOutput> | null;
  return o && typeof o === 'object' && typeof o.answer === 'string' ? o.answer : JSON.stringify(out ?? null);
}
