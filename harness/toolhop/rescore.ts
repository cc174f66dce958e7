import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonl, writeFileAtomic } from '../core/jsonl.ts';
import { fmtEstimate } from '../report/markdown.ts';
import { flattenMetrics, SummarySchema, type Summary } from '../report/summary.ts';
import { Prediction, Result } from './records.ts';
import { toolhopMarkdown } from './report.ts';
import { scoreAnswer } from './score.ts';
import { metaFromFinished } from './meta.ts';
import { FILES, instanceKey } from './output.ts';
import { aggregateToolhop } from './summary.ts';
import { buildSummary } from '../report/summary.ts';
import type { ReproHeader } from '../core/repro.ts';

/**
 * `toolhop rescore`: recompute correctness from predictions.jsonl alone (no model, no tools), rewrite
 * results.jsonl, and re-aggregate summary.json / report.md, keeping the original run's header.
 */
export async function rescoreDir(dir: string): Promise<{ instances: number; correct: number; changed: number; accuracy: string }> {
  const previous = new Map<string, boolean>();
  for (const raw of readJsonl(join(dir, FILES.results))) {
    const r = Result.safeParse(raw);
    if (r.success) previous.set(instanceKey(r.data.id, r.data.trial), r.data.correct);
  }
  const results: Result[] = [];
  const metas = [];
  let changed = 0;
  const seen = new Set<string>();
  for (const [i, raw] of readJsonl(join(dir, FILES.predictions)).entries()) {
    const parsed = Prediction.safeParse(raw);
    if (!parsed.success) throw new Error(`${join(dir, FILES.predictions)}: line ${i + 1}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
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
    metas.push(metaFromFinished({ result, prediction: p }, false));
  }
  writeFileAtomic(join(dir, FILES.results), results.map((r) => JSON.stringify(r) + '\n').join(''));

  const old = existsSync(join(dir, FILES.summary)) ? SummarySchema.safeParse(JSON.parse(readFileSync(join(dir, FILES.summary), 'utf8'))) : undefined;
  const header = (old?.success ? old.data.header : undefined) as ReproHeader | undefined;
  const seed = Number((header as { seed?: number } | undefined)?.seed ?? 0);
  const agg = aggregateToolhop(metas, seed);
  let summary: Summary | undefined;
  if (header) {
    summary = buildSummary({
      suite: 'toolhop',
      header,
      config: { ...(old?.success ? old.data.config : {}), rescored_at: new Date().toISOString() },
      counts: agg.counts,
      metrics: agg.metrics,
      breakdowns: agg.breakdowns,
      errors: agg.errors,
      extra: { activity: agg.activity },
      gate: null,
    });
    writeFileAtomic(join(dir, FILES.summary), JSON.stringify(summary, null, 2) + '\n');
    writeFileSync(join(dir, FILES.report), toolhopMarkdown(summary));
  }
  const acc = summary ? flattenMetrics(summary.metrics as never).accuracy : undefined;
  return {
    instances: results.length,
    correct: results.filter((r) => r.correct).length,
    changed,
    accuracy: acc ? `${fmtEstimate(acc)} n=${acc.n}` : `${results.filter((r) => r.correct).length}/${results.length}`,
  };
}
