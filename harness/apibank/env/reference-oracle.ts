// The reference runner as a differential oracle (fixtures/apibank/score_oracle.py in a long-lived Python child),
// and the comparison of its verdicts with this environment's over generated calls. Needs a MAS-PromptBench
// checkout ($TOOLGAUGE_APIBANK_REF) and a Python 3.11 with `requests` and `numpy`; says why when it cannot run.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pyRepr } from '../../core/pyliteral/index.ts';
import { JSON_LINES_CHILD, JsonLinesChild } from '../../core/json-lines-child.ts';
import { pythonCommand } from '../../core/pyliteral/python-oracle.ts';
import { scoreTask } from './score.ts';
import type { CallCase } from './variants.ts';
import type { ApiBankTask, EmbeddingFallback, ScoreOptions } from './index.ts';

export const SCORE_ORACLE = fileURLToPath(new URL('../../../fixtures/apibank/score_oracle.py', import.meta.url));

export interface RefVerdict {
  correct: boolean;
  stage: string;
  error: string | null;
  result: string | null;
}

export class ReferenceScorer extends JsonLinesChild {
  /** `embed: 'letters'` gives both sides the letter-count stand-in model (letterEmbeddingFallback). */
  static async start(
    refDir = process.env['TOOLGAUGE_APIBANK_REF'],
    embed: 'none' | 'letters' = 'none',
  ): Promise<ReferenceScorer | { skip: string }> {
    if (!refDir) return { skip: 'TOOLGAUGE_APIBANK_REF is not set (a MAS-PromptBench checkout)' };
    if (!existsSync(join(refDir, 'topologies/single/apibank/langgraph_apibank.py'))) {
      return { skip: `${refDir} has no topologies/single/apibank/langgraph_apibank.py` };
    }
    const python = pythonCommand();
    const probe = await execa(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { reject: false });
    if (probe.failed || probe.stdout.trim() !== '3.11')
      return { skip: `${python} is not Python 3.11 (set TOOLGAUGE_PYTHON)` };
    const options = { ...JSON_LINES_CHILD, env: { ...JSON_LINES_CHILD.env, TOOLGAUGE_APIBANK_ORACLE_EMBED: embed } };
    const s = new ReferenceScorer(
      execa(python, ['-X', 'utf8', SCORE_ORACLE, refDir], options),
      'API-Bank reference scorer',
    );
    const hello = await s.ask<{ ready: boolean; why?: string }>({ hello: true });
    if (!hello.ready) {
      await s.close();
      return { skip: `reference cannot run: ${hello.why}` };
    }
    return s;
  }
  score(task: ApiBankTask, text: string): Promise<RefVerdict> {
    return this.ask<RefVerdict>({
      task: { level: task.level, ground_truth: task.ground_truth, prior_api_turns: task.prior_api_turns },
      call: text,
    });
  }
}

/** The oracle's letter-count stand-in model, computed the same way: the first item of highest cosine above 0. */
export const letterEmbeddingFallback: EmbeddingFallback = ({ keywords, items }) => {
  const vec = (t: string): number[] => {
    const v = new Array<number>(26).fill(0);
    for (const ch of t.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[ch.charCodeAt(0) - 97]!++;
    return v;
  };
  const cos = (a: number[], b: number[]): number => {
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let k = 0; k < 26; k++) dot += a[k]! * b[k]!;
    for (let k = 0; k < 26; k++) na += a[k]! * a[k]!;
    for (let k = 0; k < 26; k++) nb += b[k]! * b[k]!;
    return na === 0 || nb === 0 ? 0 : dot / (Math.sqrt(na) * Math.sqrt(nb));
  };
  const kw = vec(keywords);
  let best: string | null = null;
  let score = 0;
  for (const it of items) {
    const c = cos(kw, vec(it.desc_for_search));
    if (c > score) [best, score] = [it.name, c];
  }
  return best;
};

/** Classes this environment reports undetermined (network or absent modules); tasks with them are left out. */
export const EXTERNAL_APIS = new Set(['Dictionary', 'SearchEngine', 'Translate']);

export interface Tally {
  cases: number;
  bothDetermined: number;
  agree: number;
  oursUndetermined: number;
  refUndetermined: number;
  stageAgree: number;
  reasonAgree: number;
  reasonCompared: number;
  resultAgree: number;
  resultCompared: number;
  disagreements: string[];
}
export const emptyTally = (): Tally => ({
  cases: 0,
  bothDetermined: 0,
  agree: 0,
  oursUndetermined: 0,
  refUndetermined: 0,
  stageAgree: 0,
  reasonAgree: 0,
  reasonCompared: 0,
  resultAgree: 0,
  resultCompared: 0,
  disagreements: [],
});

/** Outputs drawn at random by the reference (an appointment id, a token): their results are not compared. */
const RANDOM_OUTPUT = new Set(['AppointmentRegistration', 'RegisterUser']);

/** Score every case both ways and add to `t`. */
export async function compareCases(
  ref: ReferenceScorer,
  task: ApiBankTask,
  cases: readonly CallCase[],
  opts: ScoreOptions,
  t: Tally,
): Promise<void> {
  const refs = await Promise.all(cases.map((c) => ref.score(task, c.text)));
  cases.forEach((c, i) => {
    const r = refs[i]!;
    const ours = scoreTask(task, c.call, opts);
    t.cases++;
    const refUndetermined = (r.error ?? '').includes('no embeddings');
    if (ours.correct === null) t.oursUndetermined++;
    if (refUndetermined) t.refUndetermined++;
    if (ours.correct === null || refUndetermined) return;
    t.bothDetermined++;
    const where = `${task.id} ${c.label} ${c.text.slice(0, 160)}`;
    if (ours.correct === r.correct) t.agree++;
    else t.disagreements.push(`${where}: ours ${ours.correct} (${ours.reason}) ref ${r.correct} (${r.error})`);
    if (ours.stage === r.stage) t.stageAgree++;
    if (!r.correct && ours.correct === false) {
      t.reasonCompared++;
      if ((ours.reason ?? '') === (r.error ?? '')) t.reasonAgree++;
      else if (t.disagreements.length < 400)
        t.disagreements.push(`[reason] ${where}: ours ${ours.reason} | ref ${r.error}`);
    }
    if (r.result !== null && ours.predictedResult !== undefined && !RANDOM_OUTPUT.has(task.ground_truth.api_name)) {
      t.resultCompared++;
      if (pyRepr(ours.predictedResult) === r.result) t.resultAgree++;
      else if (t.disagreements.length < 400)
        t.disagreements.push(`[result] ${where}: ours ${pyRepr(ours.predictedResult)} | ref ${r.result}`);
    }
  });
}
