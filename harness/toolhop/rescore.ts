import { join } from 'node:path';
import { readJsonl, writeFileAtomic } from '../core/jsonl.ts';
import type { ToolhopMeta } from './meta.ts';
import { fromRecords } from './meta.ts';
import { FILES, instanceKey } from './output.ts';
import { Prediction, Result } from './records.ts';
import { scoreAnswer } from './score.ts';

/**
 * `toolhop rescore`: recompute correctness from predictions.jsonl alone (no model, no tools) and rewrite
 * results.jsonl. Returns the metas so the caller can re-aggregate the summary.
 */
export function rescoreDir(dir: string): { results: Result[]; metas: ToolhopMeta[]; changed: number } {
  const previous = new Map<string, boolean>();
  for (const raw of readJsonl(join(dir, FILES.results))) {
    const r = Result.safeParse(raw);
    if (r.success) previous.set(instanceKey(r.data.id, r.data.trial), r.data.correct);
  }
  const results: Result[] = [];
  const metas: ToolhopMeta[] = [];
  const seen = new Set<string>();
  let changed = 0;
  for (const [i, raw] of readJsonl(join(dir, FILES.predictions)).entries()) {
    const parsed = Prediction.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${join(dir, FILES.predictions)}: line ${i + 1}: field ${issue?.path.join('.')}: ${issue?.message}`);
    }
    const p = parsed.data;
    const key = instanceKey(p.id, p.trial);
    if (seen.has(key)) continue;
    seen.add(key);
    const s = p.error ? { correct: false, rule: null, predicted: p.predicted_answer } : scoreAnswer(p.gold_answer, p.final_message, p.previous_tool_content);
    const result: Result = {
      id: p.id,
      trial: p.trial,
      hops: p.hops,
      domain: p.domain,
      answer_type: p.answer_type,
      correct: s.correct,
      rule: s.rule,
      predicted_answer: s.predicted,
      gold_answer: p.gold_answer,
      error: p.error,
    };
    if (previous.has(key) && previous.get(key) !== result.correct) changed++;
    results.push(result);
    metas.push(fromRecords(result, p));
  }
  writeFileAtomic(join(dir, FILES.results), results.map((r) => JSON.stringify(r) + '\n').join(''));
  return { results, metas, changed };
}
