import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import type { Server } from '../../harness/constrain/requests.ts';
import { paTool } from '../../harness/methods/pa-tool.ts';
import { ModelClient } from '../../harness/model/client.ts';
import { flattenMetrics } from '../../harness/report/summary.ts';
import { isLowerBetter } from '../../harness/report/compare.ts';
import { probeAggregator } from '../../harness/probe/aggregator.ts';
import { caseOutcomes } from '../../harness/probe/arms-report.ts';
import { decodeComparison } from '../../harness/probe/axes/compare-tables.ts';
import { directionOf } from '../../harness/probe/axes/direction.ts';
import { loadCases } from '../../harness/probe/cases/load.ts';
import type { ProbeCase } from '../../harness/probe/cases/types.ts';
import { runProbeCases } from '../../harness/probe/run/batch.ts';
import type { ProbeRunContext } from '../../harness/probe/run/run-case.ts';
import { chatSampler } from '../../harness/probe/run/sampler.ts';
import { resolveTemplate } from '../../harness/probe/run/template.ts';
import type { ProbeMeta, ProbeRecord } from '../../harness/probe/run/types.ts';
import { createProbeResponder } from '../../harness/probe/sim-responder.ts';
import { probeMeta } from '../../harness/probe/suite.ts';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';

// The decode and method axes through HTTP, in process: the probe pipeline (run-case) asks the simulator with the
// constraint's body fields (or the method's presented request); the simulator reads the constraint back from the
// request and plays a constrained decoder. The paired verdicts must be the ones the planted fault implies.

const DATE = '2026-01-15';
const all = loadCases(fromRoot('cases', 'probe', 'cases.jsonl'), { dateContext: DATE }).cases;
// 40 call cases of two categories and 8 abstention traps (test split): enough pairs for a credible verdict.
const cases = [
  ...all.filter((c) => c.split === 'test' && ['C1', 'C3'].includes(c.cat)),
  ...all.filter((c) => c.split === 'test' && c.cat === 'C5').slice(0, 8),
];
const byId = new Map(all.map((c) => [c.id, c]));
let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({
    responders: { probe: createProbeResponder({ lookup: (id) => byId.get(id), template: null }) },
  });
});
afterAll(() => sim.close());

const client = (model: string) =>
  new ModelClient({
    baseUrl: sim.url,
    model,
    timeoutMs: 10_000,
    retries: 1,
    concurrency: 16,
    backoff: { baseMs: 5, maxMs: 20 },
  });

async function arm(
  model: string,
  transport: 'chat' | 'completions',
  extra: Partial<ProbeRunContext>,
  set: readonly ProbeCase[] = cases,
): Promise<ProbeRecord[]> {
  const template = resolveTemplate({ transport, templateFile: undefined }, DATE);
  return runProbeCases(
    set,
    { client: client(model), transport, template, family: 'hermes', model, injectedDate: DATE, ...extra },
    16,
  );
}

/**
 * The free-decoding arm of a model and transport, run once per file: it does not depend on the server a constrained
 * arm names, and three of the servers below compare against the same chat arm.
 */
const freeArms = new Map<string, Promise<ProbeRecord[]>>();
function freeArm(model: string, transport: 'chat' | 'completions'): Promise<ProbeRecord[]> {
  const key = `${model}|${transport}`;
  let run = freeArms.get(key);
  if (!run) freeArms.set(key, (run = arm(model, transport, {})));
  return run;
}

const constrained = (server: Server, model: string, maxStringLength?: number): Partial<ProbeRunContext> => ({
  constrain: { server, ...(maxStringLength ? { maxStringLength } : {}) },
  arm: { decode: 'constrained', method: 'baseline', model },
});
const outcomes = (recs: ProbeRecord[]) => caseOutcomes(recs.map(probeMeta));
const verdicts = (free: ProbeRecord[], con: ProbeRecord[]) => {
  const t = decodeComparison(
    { label: 'free', outcomes: outcomes(free) },
    { label: 'constrained', outcomes: outcomes(con) },
    { seed: 1 },
  );
  return Object.fromEntries(t.rows.map((r) => [r.metric, r.word]));
};

describe('constrained decoding on the simulator, over HTTP (paired verdicts)', () => {
  const modes: Array<[Server, 'chat' | 'completions']> = [
    ['llamacpp', 'completions'],
    ['vllm', 'chat'],
    ['sglang', 'chat'],
    ['openai', 'chat'],
  ];

  it.each(modes)(
    'format_failure with --server %s (%s): parse_ok and schema_valid credibly improve',
    async (server, transport) => {
      const model = 'sim:fault?cause=format_failure';
      const [free, con] = await Promise.all([
        freeArm(model, transport),
        arm(model, transport, constrained(server, model)),
      ]);
      expect(con.every((r) => !r.error && r.constraint?.server === server)).toBe(true);
      const v = verdicts(free, con);
      expect(v.parse_ok).toBe('improved');
      expect(v['layers.schema_valid.over_call_expected']).toBe('improved');
      // the forced calls are the intended ones: arguments follow
      expect(v['layers.args_correct.over_call_expected']).toBe('improved');
      expect(v.false_trigger).toBe('no credible change');
    },
  );

  it.each(modes)(
    'decision_failure with --server %s (%s): no credible change in tool or arguments',
    async (server, transport) => {
      const model = 'sim:fault?cause=decision_failure';
      const [free, con] = await Promise.all([
        freeArm(model, transport),
        arm(model, transport, constrained(server, model)),
      ]);
      const v = verdicts(free, con);
      for (const m of [
        'accuracy',
        'layers.tool_correct.given_parse_ok',
        'layers.args_correct.given_tool_correct',
        'layers.args_correct.over_call_expected',
        'no_call',
        'false_trigger',
      ])
        expect(v[m], m).toBe('no credible change');
    },
  );

  it('an unbounded forced string may loop (truncated, repetition); --max-string-length closes it (a wrong value instead)', async () => {
    const model = 'sim:fault?cause=format_failure';
    const set = all.filter((c) => c.expected !== null).slice(0, 80);
    const [open, bounded] = await Promise.all([
      arm(model, 'completions', constrained('llamacpp', model), set),
      arm(model, 'completions', constrained('llamacpp', model, 24), set),
    ]);
    const loops = open.filter((r) => r.repetition);
    expect(loops.length).toBeGreaterThan(0);
    expect(
      loops.every((r) => r.output?.finish_reason === 'length' && r.parse?.strict.truncated && !r.passed.strict),
    ).toBe(true);
    // bounded: no call is cut off; the cases that looped now close their call, with the looped (wrong) value
    expect(bounded.filter((r) => r.output?.finish_reason === 'length')).toEqual([]);
    const byId = new Map(bounded.map((r) => [r.id, r]));
    for (const r of loops) expect(byId.get(r.id)!.scores?.strict.parse_ok, r.id).toBe(1);
    // (a free-text argument scored by token overlap may still pass with its value repeated)
    expect(loops.filter((r) => !byId.get(r.id)!.passed.strict).length).toBeGreaterThan(loops.length / 2);
  });
});

describe('PA-Tool over HTTP: the model names the tools, is asked in its names, its calls are scored in the originals', () => {
  it('every case passes as the baseline does; raw calls use the presented names, scored calls the original ones', async () => {
    const model = 'sim:oracle';
    const set = cases.filter((c) => c.expected !== null).slice(0, 40);
    const c = client(model);
    const method = paTool({ n: 4 });
    const sampler = chatSampler(c, 'pa_tool');
    const recs = await arm(
      model,
      'chat',
      {
        method: { name: 'pa_tool', prepare: (req) => method.prepare(req, { sampler, seed: 0 }) },
        arm: { decode: 'free', method: 'pa_tool', model },
      },
      set,
    );
    expect(
      recs.filter((r) => r.error || !r.passed.strict).map((r) => `${r.id}: ${r.error ?? r.cause.strict.evidence}`),
    ).toEqual([]);
    let renamed = 0;
    for (const r of recs) {
      const rename = (r.method_meta as { rename: { tools: Record<string, string> } }).rename;
      const original = r.expected!.map((e) => e.name);
      const sent = r.output!.tool_calls.map((t) => t.name);
      // original → presented: the model called each expected tool by its presented name
      expect(sent).toEqual(original.map((n) => rename.tools[n] ?? n));
      // presented → original: the scored calls are in the case's own names and argument keys
      expect(r.parse!.strict.calls.map((x) => x.name)).toEqual(original);
      expect(r.parse!.strict.calls.map((x) => Object.keys(x.arguments).sort())).toEqual(
        r.expected!.map((e) => Object.keys(e.arguments).sort()),
      );
      if (sent.some((n, i) => n !== original[i])) renamed++;
    }
    expect(renamed).toBeGreaterThan(set.length / 2);
  });
});

describe('every reported metric declares a direction, and the kit words it the same way', () => {
  it('lowerIsBetter is the registry: a metric is in it exactly when its declared direction is lower-is-better', async () => {
    const model = 'sim:coin?p=0.5';
    const recs = await arm(
      model,
      'completions',
      { arm: { decode: 'free', method: 'baseline', model } },
      cases.slice(0, 30),
    );
    const metas: ProbeMeta[] = recs.map(probeMeta);
    const a = probeAggregator.aggregate(metas, 0, {});
    const names = Object.keys(flattenMetrics(JSON.parse(JSON.stringify(a.metrics)) as never));
    expect(names.length).toBeGreaterThan(40);
    for (const n of names)
      expect(isLowerBetter(n, probeAggregator.lowerIsBetter ?? []), n).toBe(directionOf(n) === 'lower_is_better');
    for (const n of ['no_call', 'false_trigger', 'lenient.no_call', 'lenient.false_trigger', 'truncated', 'error_rate'])
      expect(isLowerBetter(n, probeAggregator.lowerIsBetter ?? []), n).toBe(true);
  });
});
