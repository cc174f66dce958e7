// The optimizer on its calibration fixtures: `npx tsx bench/optimize.ts [--fixture tradeoff|merge|trait] …`.
//
// `--fixture tradeoff` (default; harness/optimize/tradeoff.ts, in process, no HTTP): GEPA beside its baselines — the
// seed prompt, a hand-written prompt (no search), random mutation and greedy hill-climbing with the same budget —
// and its broken variants ("always accept", `>=` acceptance, no merge), on every seed of `--seeds` (default 0-29).
// Each row of the table: the expected accuracy on the held-out rows (mean over seeds, 95% bootstrap CI over seeds),
// what the search did (validated candidates, final Pareto front size, merges tried / kept and what a kept merge
// added over its better parent on validation), and the paired comparison with GEPA over seeds (sign-flip test, Holm
// over the table). Options: --budget 600 --train 30 --val 20 --luck 0.3 --overgeneral 0.35 --misread 0.15.
//
// `--fixture merge` (harness/optimize/merge-fixture.ts, in process): the same table on the fixture where one lineage
// can fix only one of two row groups and a merge of two lineages is the way to both (what merge adds shows there).
//
// `--fixture trait`: the older fixture over HTTP (sim:trait / sim:reflect), every topology, at full size:
// `[--data FILE] [--budget N] [--train 30] [--val 30] [--seed 1] [--tools gold|sandbox] [--only single,…]`.
// Every rollout is the real ToolHop runner against the simulator. Reported:
//   - GEPA on every topology: seed → best validation accuracy with 95% CIs and the paired verdict, the same on all
//     held-out rows (outside train, val and the eval ids), rollouts spent against the budget;
//   - the broken variants on single (no reflection, inverted acceptance, validation rows in training on the
//     row-unique trait, with the honest run on that trait beside it) and MIPRO;
// `--tools gold` (default) answers each tool call with the hop's gold value instead of running dataset Python (the
// fixture's answers do not depend on tool results); `--tools sandbox` runs the dataset's tools in pyodide.
// Default data: the 182 real rows in ../shared/data (the trade-off fixture falls back to 182 synthetic rows without
// them). These are fixture figures, never model results.
import { existsSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readConfig } from '../harness/core/config.ts';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import { fromRoot } from '../harness/core/paths.ts';
import { runOptimize, type OptimizeRequest } from '../harness/optimize/run.ts';
import { loadDatasetFile } from '../harness/toolhop/dataset.ts';
import { goldSandbox } from '../harness/toolhop/gold-sandbox.ts';
import { readToolhopSettings, type Topology } from '../harness/toolhop/settings.ts';
import { bootstrapRate, compareMany, type MetricEstimate, type PairedComparison } from '../harness/stats/index.ts';
import {
  calibrate,
  CALIBRATION_DEFAULTS,
  METHODS,
  type CalibrationOptions,
  type CalibrationResult,
  type Method,
} from '../harness/optimize/calibrate.ts';
import { CRITIC_DEFAULTS, LUCK, syntheticRows } from '../harness/optimize/tradeoff.ts';
import { execFileSync } from 'node:child_process';
import { writeRecord } from './record.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: fromRoot('..', 'shared', 'data', 'toolhop', 'ToolHop.sample.json') },
    fixture: { type: 'string', default: 'tradeoff' },
    budget: { type: 'string' },
    train: { type: 'string', default: '30' },
    val: { type: 'string' },
    seed: { type: 'string', default: '1' },
    seeds: { type: 'string', default: '0-29' },
    luck: { type: 'string' },
    overgeneral: { type: 'string' },
    misread: { type: 'string' },
    tools: { type: 'string', default: 'gold' },
    only: { type: 'string' },
    out: { type: 'string', default: fromRoot('results', 'bench', 'optimize.json') },
    // Also write bench/records/<NAME>.json (bench/record.ts): per method, held-out accuracy and GEPA − method in thousandths.
    record: { type: 'string' },
  },
});
const data = values.data!;
if (values.fixture === 'tradeoff' || values.fixture === 'merge') {
  await tradeoffBench(values.fixture);
  process.exit(0);
}
if (values.fixture !== 'trait') throw new Error(`--fixture: expected tradeoff, merge or trait, got ${values.fixture}`);
if (!existsSync(data)) throw new Error(`${data} not found (pass --data FILE)`);
const rows = new Map(loadDatasetFile(data).entries.flatMap((e) => (e.ok ? [[e.id, e.row] as const] : [])));
const budget = Number(values.budget ?? 300);
const seed = Number(values.seed);

function request(o: {
  topology: Topology;
  model?: string;
  reflect?: string;
  method?: 'gepa' | 'mipro';
  ablation?: OptimizeRequest['ablation'];
}): OptimizeRequest {
  return {
    method: o.method ?? 'gepa',
    suite: 'toolhop',
    run: readConfig({
      TOOLGAUGE_MODEL: o.model ?? 'sim:trait',
      TOOLGAUGE_CONCURRENCY: '8',
      TOOLGAUGE_SEED: String(seed),
    }),
    settings: readToolhopSettings({
      TOOLHOP_ALLOW_DATASET_EXEC: '1',
      TOOLHOP_DATA: data,
      TOOLHOP_TOPOLOGY: o.topology,
    }),
    reflection: {
      model: o.reflect ?? 'sim:reflect',
      baseUrl: undefined,
      apiKey: 'x',
      temperature: 0,
      timeoutMs: 10_000,
      retries: 2,
    },
    trainSize: Number(values.train),
    valSize: Number(values.val ?? 30),
    budget,
    seed,
    out: mkdtempSync(join(tmpdir(), 'bench-optimize-')),
    allowEvalIds: false,
    resume: false,
    heldout: rows.size,
    ...(o.ablation ? { ablation: o.ablation } : {}),
  };
}

const f = (m: MetricEstimate) => `${m.value.toFixed(3)} [${m.lo.toFixed(3)}, ${m.hi.toFixed(3)}]`;
const cmp = (c: PairedComparison) =>
  `${c.diff >= 0 ? '+' : ''}${c.diff.toFixed(3)} [${c.lo.toFixed(3)}, ${c.hi.toFixed(3)}] ${c.mcnemar ? `${c.mcnemar.b01}/${c.mcnemar.b10}` : ''} p=${c.pValue.toPrecision(2)} ${c.verdict}`;

const runs: Array<[string, OptimizeRequest]> = [
  ...(['single', 'independent', 'decentralized', 'centralized', 'sequential'] as const).map(
    (t) => [`GEPA ${t}`, request({ topology: t })] as [string, OptimizeRequest],
  ),
  ['GEPA single, no reflection', request({ topology: 'single', ablation: { reflection: 'none' } })],
  ['GEPA single, inverted acceptance', request({ topology: 'single', ablation: { acceptance: 'inverted' } })],
  [
    'GEPA single, row-unique trait, val rows in training',
    request({
      topology: 'single',
      model: 'sim:trait?trait=question',
      reflect: 'sim:reflect?trait=question&max=3',
      ablation: { trainOn: 'val' },
    }),
  ],
  [
    'GEPA single, row-unique trait, honest',
    request({ topology: 'single', model: 'sim:trait?trait=question', reflect: 'sim:reflect?trait=question&max=3' }),
  ],
  ['MIPRO single', request({ topology: 'single', method: 'mipro' })],
];
const only = values.only?.split(',');
const results: unknown[] = [];
console.log(
  `data ${data} (${rows.size} rows); budget ${budget}; train ${values.train}, val ${values.val}; seed ${seed}; tools ${values.tools}`,
);
console.log(
  '| run | val seed | val best | val paired (b01/b10) | held-out seed | held-out best | held-out paired | spent | wall s |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [label, req] of runs) {
  if (only && !only.some((o) => label.includes(o))) continue;
  const t0 = performance.now();
  const o = await runOptimize(
    req,
    values.tools === 'gold' ? { sandbox: () => goldSandbox((id) => rows.get(id)) } : { closeRuntime: false },
  );
  const s = o.summary;
  const wall = (performance.now() - t0) / 1000;
  console.log(
    `| ${label} | ${f(s.validation.seed)} | ${f(s.validation.best)} | ${cmp(s.validation.comparison)} | ${s.heldout ? f(s.heldout.seed) : ''} | ${s.heldout ? f(s.heldout.best) : ''} | ${s.heldout ? cmp(s.heldout.comparison) : ''} | ${s.spent}/${s.budget} | ${wall.toFixed(1)} |`,
  );
  if (s.spent > s.budget) throw new Error(`${label}: spent ${s.spent} > budget ${s.budget}`);
  results.push({
    label,
    out: o.outDir,
    wall_s: wall,
    validation: s.validation,
    heldout: s.heldout,
    spent: s.spent,
    budget: s.budget,
    stop: s.stop_reason,
    best: s.best,
    lineage: s.lineage,
    tokens: s.tokens,
  });
}
writeFileAtomic(
  values.out!,
  JSON.stringify(
    {
      fixture: 'trait',
      data,
      budget,
      seed,
      tools: values.tools,
      notice: 'simulator calibration fixture (sim:trait / sim:reflect), not a model result',
      results,
    },
    null,
    1,
  ) + '\n',
);
console.log(`written ${values.out}`);
process.exit(0);

/** `--seeds 0-29` or `--seeds 0,3,7`. */
function seedList(spec: string): number[] {
  const range = /^(\d+)-(\d+)$/.exec(spec);
  if (range) return Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, i) => Number(range[1]) + i);
  return spec.split(',').map((x) => Number(x));
}

async function tradeoffBench(fixture: 'tradeoff' | 'merge'): Promise<void> {
  const real = existsSync(data);
  const rows = real ? loadDatasetFile(data).entries.flatMap((e) => (e.ok ? [e.row] : [])) : syntheticRows(182, 1);
  const seeds = seedList(values.seeds!);
  const o: CalibrationOptions = {
    fixture,
    budget: Number(values.budget ?? CALIBRATION_DEFAULTS.budget),
    trainSize: Number(values.train),
    valSize: Number(values.val ?? CALIBRATION_DEFAULTS.valSize),
    ...(values.luck ? { luck: Number(values.luck) } : {}),
    critic: {
      ...(values.overgeneral ? { overgeneral: Number(values.overgeneral) } : {}),
      ...(values.misread ? { misread: Number(values.misread) } : {}),
    },
  };
  const t0 = performance.now();
  const by = new Map<Method, CalibrationResult[]>();
  for (const m of METHODS) {
    const rs: CalibrationResult[] = [];
    for (const s of seeds) rs.push(await calibrate(rows, m, s, o));
    by.set(m, rs);
  }
  const perSeed = (m: Method) => new Map(by.get(m)!.map((r) => [String(r.seed), r.heldoutMean]));
  const others = METHODS.filter((m) => m !== 'gepa');
  const cmps = compareMany(
    others.map((m) => ({ metric: m, a: perSeed(m), b: perSeed('gepa') })),
    { seed: 0 },
  );
  const avg = (rs: CalibrationResult[], f: (r: CalibrationResult) => number) =>
    rs.reduce((a, r) => a + f(r), 0) / rs.length;
  const source = real
    ? `${data} (${rows.length} real rows; answers and types only)`
    : `${rows.length} synthetic rows (${data} not found)`;
  console.log(
    `${fixture === 'merge' ? 'merge fixture (merge-fixture.ts' : 'trade-off fixture (tradeoff.ts'}, in process; a fixture, not a model result): ${source}`,
  );
  console.log(
    `budget ${o.budget} rollouts; train ${o.trainSize}, val ${o.valSize}; ${seeds.length} seeds (${values.seeds}); luck ${o.luck ?? LUCK}; critic ${fixture === 'merge' ? JSON.stringify({ misread: o.critic?.misread ?? 0.15 }) : JSON.stringify({ ...CRITIC_DEFAULTS, ...o.critic, seed: undefined })}`,
  );
  console.log('');
  console.log(
    '| method | held-out expected accuracy (mean over seeds) [95% CI] | val best | candidates | front | merges tried / kept | merge gain (val) | spent | GEPA − method [95% CI] | p (Holm) | GEPA better / worse / tied seeds | verdict |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const json: unknown[] = [];
  for (const m of METHODS) {
    const rs = by.get(m)!;
    const est = bootstrapRate(
      rs.map((r) => r.heldoutMean),
      { denominator: 'seeds', seed: 0 },
    );
    const searched = rs[0]!.valBest !== null;
    const gains = rs.flatMap((r) => r.mergeGains);
    const c = cmps[others.indexOf(m as never)];
    const g = perSeed('gepa');
    const mine = perSeed(m);
    const better = [...g].filter(([k, v]) => v > mine.get(k)! + 1e-12).length;
    const worse = [...g].filter(([k, v]) => v < mine.get(k)! - 1e-12).length;
    const cells = [
      m,
      `${est.value.toFixed(3)} [${est.lo.toFixed(3)}, ${est.hi.toFixed(3)}]`,
      searched ? avg(rs, (r) => r.valBest!).toFixed(3) : '',
      searched ? avg(rs, (r) => r.candidates).toFixed(1) : '',
      searched ? avg(rs, (r) => r.front).toFixed(1) : '',
      searched ? `${avg(rs, (r) => r.mergesTried).toFixed(2)} / ${avg(rs, (r) => r.mergesKept).toFixed(2)}` : '',
      gains.length
        ? `${gains.reduce((a, b) => a + b, 0) / gains.length >= 0 ? '+' : ''}${(gains.reduce((a, b) => a + b, 0) / gains.length).toFixed(3)} (${gains.length} kept)`
        : '',
      searched ? avg(rs, (r) => r.spent).toFixed(0) : '',
      c ? `${c.diff >= 0 ? '+' : ''}${c.diff.toFixed(3)} [${c.lo.toFixed(3)}, ${c.hi.toFixed(3)}]` : '',
      c ? c.pAdjusted.toPrecision(2) : '',
      c ? `${better} / ${worse} / ${seeds.length - better - worse}` : '',
      c
        ? c.verdict === 'credible gain'
          ? 'GEPA credibly better'
          : c.verdict === 'credible harm'
            ? 'GEPA credibly worse'
            : 'no credible difference'
        : '(reference)',
    ];
    console.log(`| ${cells.join(' | ')} |`);
    json.push({
      method: m,
      heldout: est,
      per_seed: rs.map((r) => ({
        seed: r.seed,
        heldout: r.heldoutMean,
        val_best: r.valBest,
        spent: r.spent,
        candidates: r.candidates,
        front: r.front,
        merges_tried: r.mergesTried,
        merges_kept: r.mergesKept,
        merge_gains: r.mergeGains,
      })),
      vs_gepa: c ?? null,
    });
  }
  const wall = (performance.now() - t0) / 1000;
  console.log(`\n${wall.toFixed(1)} s`);
  if (values.record) {
    const key = (m: Method) => m.replace(/[^a-z]+/g, '_').replace(/_$/, '');
    const figures: Record<string, number> = { seeds: seeds.length, budget: o.budget };
    for (const m of METHODS) {
      const rs = by.get(m)!;
      const est = bootstrapRate(
        rs.map((r) => r.heldoutMean),
        { denominator: 'seeds', seed: 0 },
      );
      figures[`${key(m)}_heldout_x1000`] = Math.round(est.value * 1000);
      const c = cmps[others.indexOf(m as never)];
      if (c)
        Object.assign(figures, {
          [`${key(m)}_gap_x1000`]: Math.round(c.diff * 1000),
          [`${key(m)}_gap_lo_x1000`]: Math.round(c.lo * 1000),
          [`${key(m)}_gap_hi_x1000`]: Math.round(c.hi * 1000),
        });
    }
    const g = by.get('gepa')!;
    const gains = g.flatMap((r) => r.mergeGains);
    Object.assign(figures, {
      gepa_merges_tried_x1000: Math.round((1000 * g.reduce((a, r) => a + r.mergesTried, 0)) / g.length),
      gepa_merges_kept_x1000: Math.round((1000 * g.reduce((a, r) => a + r.mergesKept, 0)) / g.length),
      gepa_merge_gain_x1000: gains.length ? Math.round((1000 * gains.reduce((a, b) => a + b, 0)) / gains.length) : 0,
    });
    writeRecord(values.record, figures);
    console.log(`recorded bench/records/${values.record}.json`);
  }
  const out =
    values.out === fromRoot('results', 'bench', 'optimize.json')
      ? fromRoot('results', 'bench', `optimize-${fixture}.json`)
      : values.out!;
  writeFileAtomic(
    out,
    JSON.stringify(
      {
        fixture,
        date: new Date().toISOString(),
        commit: gitHead(),
        rows: source,
        options: o,
        seeds,
        notice: `simulator calibration fixture (harness/optimize/${fixture === 'merge' ? 'merge-fixture' : 'tradeoff'}.ts), not a model result`,
        results: json,
      },
      null,
      1,
    ) + '\n',
  );
  console.log(`written ${out}`);
}

function gitHead(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: fromRoot(), encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}
