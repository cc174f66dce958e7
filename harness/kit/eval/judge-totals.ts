// The run's judge totals, from the metas alone (so `report DIR`, resumes and merged shards give the same numbers):
// the judge models' token use, apart from the task model's, and the judge errors per scorer.

import { z } from 'zod';
import { Usage } from '../../model/types.ts';
import { mdText } from '../../report/markdown.ts';

/** What a judged case's meta adds: its judges' token use, and the scorer whose judge gave no verdict. */
export interface JudgeMetaFields {
  judge_usage?: Usage;
  judge_error?: string;
}

/** The meta fields as a journal line read back must hold them (an edited line is refused, never summed as garbage). */
export const judgeMetaShape = {
  judge_usage: Usage.optional(),
  judge_error: z.string().optional(),
};

export interface JudgeTotals {
  /** Token use of every judge request, summed over the runs (`runs`: how many runs asked a judge). */
  judge_usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number; runs: number };
  /** Scorer → runs whose judge gave no verdict (each such run is an error). */
  judge_errors?: Record<string, number>;
}

/** The judge totals of a run's metas; empty when no case asked a judge. */
export function judgeTotals(metas: readonly JudgeMetaFields[]): JudgeTotals {
  const out: JudgeTotals = {};
  const used = metas.map((m) => Usage.safeParse(m.judge_usage)).filter((r) => r.success && r.data);
  if (used.length)
    out.judge_usage = {
      prompt_tokens: used.reduce((s, r) => s + r.data!.prompt_tokens, 0),
      completion_tokens: used.reduce((s, r) => s + r.data!.completion_tokens, 0),
      total_tokens: used.reduce((s, r) => s + r.data!.total_tokens, 0),
      runs: used.length,
    };
  const errors: Record<string, number> = {};
  for (const m of metas)
    if (typeof m.judge_error === 'string') errors[m.judge_error] = (errors[m.judge_error] ?? 0) + 1;
  if (Object.keys(errors).length) out.judge_errors = Object.fromEntries(Object.entries(errors).sort());
  return out;
}

/** report.md's lines on the judges: their token use (apart from the task model's) and their errors. */
export function judgeTotalsLines(extra: Record<string, unknown> | undefined): string[] {
  const t = extra as JudgeTotals | undefined;
  const lines: string[] = [];
  const u = t?.judge_usage;
  if (u)
    lines.push(
      `Judge usage (the judge models' requests, apart from the task model's): ${u.prompt_tokens} prompt + ${u.completion_tokens} completion = ${u.total_tokens} tokens over ${u.runs} run(s).`,
    );
  const e = Object.entries(t?.judge_errors ?? {});
  if (e.length)
    lines.push(
      `Judge errors (no verdict: the request failed or the reply held none that reads; each is an error): ${e.map(([k, n]) => `${mdText(k)} ${n}`).join(', ')} run(s).`,
    );
  return lines.length ? [...lines, ''] : [];
}
