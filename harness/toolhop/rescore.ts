import { existsSync } from 'node:fs';
import { readRescoreInput } from '../core/nofollow.ts';
import { join } from 'node:path';
import { z } from 'zod';
import { DataError } from '../core/errors.ts';
import { stringifyJson } from '../core/json-float.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import { sealMeta, valueDigest } from '../kit/journal.ts';
import { artifactName } from '../kit/names.ts';
import { fromRecords, type ToolhopMeta } from './meta.ts';
import { FILES, instanceKey } from './output.ts';
import { readTranscript, withResultFloats } from './reference-files.ts';
import type { Result } from './records.ts';
import { scoreAnswer } from './score.ts';

/**
 * `toolhop rescore`: recompute correctness without the model or the tools, from a folder that toolgauge or the
 * reference runner wrote, and rewrite results.jsonl in the reference's shape (keeping toolgauge's fields).
 *
 * - toolgauge's predictions.jsonl holds the final message and the last tool result: scored as they are.
 * - the reference's predictions.jsonl holds `{idx, id, question, predicted_answer, model_name_or_path}` only (the
 *   answer may be null): the final message and last tool result come from its transcript `traces/<id>.txt`; without
 *   one, the predicted answer alone is scored (the third rule, gold in the last tool result, cannot apply). The gold
 *   answer comes from results.jsonl.
 *
 * Each meta is sealed with its prediction line and its new results line, as a run's session seals them
 * (harness/kit/journal.ts), so the journal written from them lets a later `--resume` continue the directory.
 */

const Id = z.union([z.string(), z.number()]);
const PredictionLine = z
  .object({
    id: Id,
    idx: Id.optional(),
    trial: z.number().int().min(0).default(0),
    question: z.string().nullable().default(''),
    gold_answer: z.string().optional(),
    predicted_answer: z.string().nullable().default(''),
    final_message: z.string().optional(),
    previous_tool_content: z.string().optional(),
    error: z.string().nullable().default(null),
  })
  .passthrough();
const ResultLine = z
  .object({
    id: Id,
    trial: z.number().int().min(0).default(0),
    gold_answer: z.string().nullable().optional(),
    correct: z.boolean().optional(),
  })
  .passthrough();

export interface Rescored {
  results: Result[];
  metas: ToolhopMeta[];
  /** Rows whose correctness differs from the results.jsonl that was there. */
  changed: number;
  /** Rows scored from the predicted answer alone (no final message, no transcript). */
  answerOnly: number;
}

function lines(file: string): Array<{ n: number; value: unknown }> {
  if (!existsSync(file)) return [];
  const out: Array<{ n: number; value: unknown }> = [];
  readRescoreInput(file)
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      try {
        out.push({ n: i + 1, value: JSON.parse(text) });
      } catch (err) {
        throw new DataError(file, `line ${i + 1}`, undefined, `not valid JSON (${(err as Error).message})`);
      }
    });
  return out;
}

export function rescoreDir(dir: string): Rescored {
  const predictionsFile = join(dir, FILES.predictions);
  const resultsFile = join(dir, FILES.results);
  const previous = new Map<
    string,
    { gold: string | null; correct: boolean | undefined; line: Record<string, unknown> }
  >();
  for (const { n, value } of lines(resultsFile)) {
    const r = ResultLine.safeParse(value);
    if (!r.success)
      throw new DataError(
        resultsFile,
        `line ${n}`,
        r.error.issues[0]?.path.join('.'),
        r.error.issues[0]?.message ?? 'invalid',
      );
    // The line as written (not as parsed, which puts the schema's keys first), so a rewrite keeps its key order.
    previous.set(instanceKey(String(r.data.id), r.data.trial), {
      gold: r.data.gold_answer ?? null,
      correct: r.data.correct,
      line: value as Record<string, unknown>,
    });
  }
  const results: Result[] = [];
  const metas: ToolhopMeta[] = [];
  const out: unknown[] = [];
  const seen = new Set<string>();
  let changed = 0;
  let answerOnly = 0;
  for (const { n, value } of lines(predictionsFile)) {
    const parsed = PredictionLine.safeParse(value);
    if (!parsed.success)
      throw new DataError(
        predictionsFile,
        `line ${n}`,
        parsed.error.issues[0]?.path.join('.'),
        parsed.error.issues[0]?.message ?? 'invalid',
      );
    const p = parsed.data;
    const id = String(p.id);
    const key = instanceKey(id, p.trial);
    if (seen.has(key)) continue;
    seen.add(key);
    const before = previous.get(key);
    const gold = p.gold_answer ?? before?.gold ?? null;
    if (gold === null)
      throw new DataError(
        predictionsFile,
        `line ${n}`,
        'gold_answer',
        `no gold answer for id ${id} (neither in predictions.jsonl nor in results.jsonl)`,
      );
    let final = p.final_message;
    let prevTool = p.previous_tool_content ?? '';
    if (final === undefined) {
      const transcript = [join(dir, 'traces', `${id}.txt`), join(dir, 'traces', artifactName(id, p.trial, 'txt'))].find(
        existsSync,
      );
      if (transcript)
        ({ finalMessage: final, previousToolContent: prevTool } = readTranscript(readRescoreInput(transcript)));
      else {
        final = p.predicted_answer === null ? '' : `<answer>${p.predicted_answer}</answer>`;
        answerOnly++;
      }
    }
    const s = p.error
      ? { correct: false, rule: null, predicted: p.predicted_answer ?? '' }
      : scoreAnswer(gold, final, prevTool);
    const extra = (before?.line ?? {}) as Record<string, unknown>;
    const result: Result = {
      id,
      trial: p.trial,
      hops: Number(extra.hops ?? (p as Record<string, unknown>).hops ?? 0),
      domain: String(extra.domain ?? (p as Record<string, unknown>).domain ?? ''),
      answer_type: String(extra.answer_type ?? (p as Record<string, unknown>).answer_type ?? ''),
      correct: s.correct,
      rule: s.rule,
      predicted_answer: s.predicted,
      gold_answer: gold,
      error: p.error,
    };
    if (before?.correct !== undefined && before.correct !== result.correct) changed++;
    results.push(result);
    // The reference's fields stay as they were (telemetry, style …); correctness and the answer are the new ones.
    const line = {
      ...withResultFloats(extra),
      id: p.id,
      idx: p.idx ?? p.id,
      question: p.question ?? extra.question ?? '',
      gold_answer: gold,
      predicted_answer: s.predicted,
      answer_correct: s.correct ? 1 : 0,
      correct: s.correct,
      rule: s.rule,
      trial: p.trial,
      error: p.error,
    };
    out.push(line);
    // What the run spent stays in the meta (tokens per correct answer is aggregated from it): toolgauge's
    // prediction line holds the usage, the reference's results line the token counts.
    const meta = { ...fromRecords(result, undefined), ...costOf(p as Record<string, unknown>, extra) };
    metas.push(sealMeta(meta, { [FILES.predictions]: valueDigest(value), [FILES.results]: valueDigest(line) }));
  }
  writeFileAtomic(resultsFile, out.map((r) => stringifyJson(r) + '\n').join(''), dir);
  return { results, metas, changed, answerOnly };
}

const Count = z.number().int().min(0);
const UsageFields = z.object({ prompt_tokens: Count, completion_tokens: Count, total_tokens: Count });
const Cost = z.object({ usage: UsageFields, turns: Count.optional(), tool_calls: Count.optional() });

/** The usage, turns and tool calls a row's lines record (zero where neither holds them). */
function costOf(
  prediction: Record<string, unknown>,
  result: Record<string, unknown>,
): { usage: z.infer<typeof UsageFields>; turns: number; tool_calls: number } {
  const own = Cost.safeParse(prediction);
  if (own.success) return { usage: own.data.usage, turns: own.data.turns ?? 0, tool_calls: own.data.tool_calls ?? 0 };
  const ref = UsageFields.safeParse(result);
  const count = (v: unknown) => (Count.safeParse(v).success ? (v as number) : 0);
  return {
    usage: ref.success ? ref.data : { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    turns: count(result.turns),
    tool_calls: count(result.tool_calls),
  };
}
