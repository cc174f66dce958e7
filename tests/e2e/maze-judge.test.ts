import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';
import { inProcess, readJson, readLines, tempDir } from '../helpers/cli.ts';
import { bundledMazeResponder } from '../helpers/maze-sim.ts';

// `toolgauge maze --judge-model`: the rule judge and the LLM judge (sim:judge, planted behaviour — not a model's
// result) both judge every run; summary.json and report.md carry their agreement. One CLI run, real HTTP: the agent
// talks to a simulator this test starts as its "endpoint" (--base-url), and sim:judge, given no --judge-base-url, to
// the simulator the run starts for it although the agent has an endpoint.

type Label = 'success' | 'recovered' | 'failed_safely' | 'failed';
const LABELS: Label[] = ['success', 'recovered', 'failed_safely', 'failed'];
type Meta = {
  id: string;
  pass: boolean;
  recovery: string;
  error: string | null;
  llm_judge?: { model: string; rule_label: Label; label: Label | null; error: string | null };
};
type Eval = {
  pass: boolean;
  recovery: string;
  llm_judge?: { label: Label | null; error: string | null; reply: string | null; verdict: { rests_on: string } | null };
};
type Agreement = {
  judge_model: string;
  asked: number;
  judged: number;
  judge_errors: number;
  confusion: { labels: string[]; counts: number[][] };
  pass_confusion: { labels: string[]; counts: number[][] };
};

const JUDGE = 'sim:judge?disagree=0.3&invalid=0.25&seed=5';
let agent: SimServer;
let out: string;
let r: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  agent = await startSimServer({
    responders: {
      maze: bundledMazeResponder(),
    },
  });
  out = tempDir('maze-llm-judge');
  r = await inProcess(
    [
      'maze',
      '--model',
      'sim:oracle',
      '--base-url',
      agent.url,
      '--judge-model',
      JUDGE,
      '--only',
      'C1_task_001,C3_task_001',
      '--modes',
      'P0,P1,P2,P3,P4',
      '--out-dir',
      out,
    ],
    {},
  );
}, 120_000);
afterAll(async () => {
  await agent?.close();
});

describe('toolgauge maze --judge-model (simulator)', () => {
  it('records both verdicts per run, and an unparseable verdict as a judge error that counts for nothing', () => {
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const metas = readLines<Meta>(join(out, 'instances.jsonl'));
    expect(metas).toHaveLength(10);
    let errors = 0;
    for (const m of metas) {
      const [task, mode] = m.id.split(':');
      const ev = readJson<Eval>(join(out, task!.slice(0, 2).toLowerCase(), 'evaluations', `${task}_${mode}_eval.json`));
      const j = ev.llm_judge!;
      expect(m.llm_judge, m.id).toMatchObject({ model: JUDGE, label: j.label, error: j.error });
      // The rule label from the rule judge's own verdict, mapped here by the documented table.
      const rule: Label = !ev.pass
        ? 'failed'
        : ev.recovery === 'abort'
          ? 'failed_safely'
          : ev.recovery === 'none'
            ? 'success'
            : 'recovered';
      expect(m.llm_judge!.rule_label, m.id).toBe(rule);
      if (j.label === null) {
        errors++;
        expect(j.error, m.id).toMatch(/no <verdict>/);
        expect(j.reply, m.id).toBeTruthy();
      } else {
        expect(j.error).toBeNull();
        expect(j.verdict!.rests_on.length).toBeGreaterThan(10);
      }
      // A judge error never changes the run's own verdict (the oracle passes every run).
      expect(m.pass, m.id).toBe(true);
    }
    expect(errors).toBeGreaterThan(0);
    expect(errors).toBeLessThan(10);
  });

  it('summary.json reports kappa with a CI, raw agreement and the confusion tables, matching the runs', () => {
    const s = readJson<{
      metrics: Record<
        string,
        { value: number | null; lo: number | null; hi: number | null; n: number; method: string }
      >;
      extra: { judge_agreement: Agreement };
      config: Record<string, unknown>;
    }>(join(out, 'summary.json'));
    expect(s.config).toMatchObject({ judge_model: JUDGE, judge_endpoint: 'built-in simulator' });
    const a = s.extra.judge_agreement;
    const metas = readLines<Meta>(join(out, 'instances.jsonl')).filter((m) => m.llm_judge!.label !== null);
    expect(a).toMatchObject({ judge_model: JUDGE, asked: 10, judged: metas.length, judge_errors: 10 - metas.length });
    // The table and kappa computed here from the journal, by the textbook formula.
    const counts = LABELS.map((x) =>
      LABELS.map((y) => metas.filter((m) => m.llm_judge!.rule_label === x && m.llm_judge!.label === y).length),
    );
    expect(a.confusion).toMatchObject({ labels: LABELS, counts });
    const n = metas.length;
    const po = LABELS.reduce((t, _, i) => t + counts[i]![i]!, 0) / n;
    const pe = LABELS.reduce(
      (t, _, i) => t + (counts[i]!.reduce((x, y) => x + y, 0) / n) * (counts.reduce((x, row) => x + row[i]!, 0) / n),
      0,
    );
    const k = s.metrics.judge_kappa!;
    expect(k.value).toBeCloseTo((po - pe) / (1 - pe), 5);
    expect(k).toMatchObject({ n, method: 'bootstrap' });
    expect(k.lo!).toBeLessThanOrEqual(k.value!);
    expect(k.hi!).toBeGreaterThanOrEqual(k.value!);
    expect(s.metrics.judge_agreement!.value).toBeCloseTo(po, 5);
    const passed = (l: Label) => l !== 'failed';
    expect(a.pass_confusion.counts).toEqual([
      [
        metas.filter((m) => passed(m.llm_judge!.rule_label) && passed(m.llm_judge!.label!)).length,
        metas.filter((m) => passed(m.llm_judge!.rule_label) && !passed(m.llm_judge!.label!)).length,
      ],
      [
        metas.filter((m) => !passed(m.llm_judge!.rule_label) && passed(m.llm_judge!.label!)).length,
        metas.filter((m) => !passed(m.llm_judge!.rule_label) && !passed(m.llm_judge!.label!)).length,
      ],
    ]);
  });

  it('report.md and the terminal summary show the agreement', () => {
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toMatch(/## Rule judge vs LLM judge[\s\S]*Cohen’s kappa \(4 labels\) \| -?\d\.\d{3} \[/);
    expect(md).toMatch(/\| rule judge ↓ \/ LLM judge → \| success \| recovered \| failed_safely \| failed \|/);
    expect(r.stdout).toMatch(/judges: rule vs sim:judge\?disagree=0\.3&invalid=0\.25&seed=5: kappa -?\d\.\d{3} \[/);
  });
});
