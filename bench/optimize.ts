// The optimizer on its calibration fixture, at full size: `npx tsx bench/optimize.ts [--data FILE] [--budget N]
// [--train 30] [--val 30] [--seed 1] [--tools gold|sandbox] [--only single,independent,…] [--out FILE]`.
// Every rollout is the real ToolHop runner against the simulator (sim:trait, reflection sim:reflect). Reported:
//   - GEPA on every topology: seed → best validation accuracy with 95% CIs and the paired verdict, the same on all
//     held-out rows (outside train, val and the eval ids), rollouts spent against the budget;
//   - the broken variants on single (no reflection, inverted acceptance, validation rows in training on the
//     row-unique trait, with the honest run on that trait beside it) and MIPRO;
// `--tools gold` (default) answers each tool call with the hop's gold value instead of running dataset Python (the
// fixture's answers do not depend on tool results); `--tools sandbox` runs the dataset's tools in pyodide.
// Default data: the 182 real rows in ../shared/data. These are fixture figures, never model results.
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
import type { MetricEstimate, PairedComparison } from '../harness/stats/index.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: fromRoot('..', 'shared', 'data', 'toolhop', 'ToolHop.sample.json') },
    budget: { type: 'string', default: '300' },
    train: { type: 'string', default: '30' },
    val: { type: 'string', default: '30' },
    seed: { type: 'string', default: '1' },
    tools: { type: 'string', default: 'gold' },
    only: { type: 'string' },
    out: { type: 'string', default: fromRoot('results', 'bench', 'optimize.json') },
  },
});
const data = values.data!;
if (!existsSync(data)) throw new Error(`${data} not found (pass --data FILE)`);
const rows = new Map(loadDatasetFile(data).entries.flatMap((e) => (e.ok ? [[e.id, e.row] as const] : [])));
const budget = Number(values.budget);
const seed = Number(values.seed);

function request(o: { topology: Topology; model?: string; reflect?: string; method?: 'gepa' | 'mipro'; ablation?: OptimizeRequest['ablation'] }): OptimizeRequest {
  return {
    method: o.method ?? 'gepa',
    suite: 'toolhop',
    run: readConfig({ TOOLGAUGE_MODEL: o.model ?? 'sim:trait', TOOLGAUGE_CONCURRENCY: '8', TOOLGAUGE_SEED: String(seed) }),
    settings: readToolhopSettings({ TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLHOP_DATA: data, TOOLHOP_TOPOLOGY: o.topology }),
    reflection: { model: o.reflect ?? 'sim:reflect', baseUrl: undefined, apiKey: 'x', temperature: 0, timeoutMs: 10_000, retries: 2 },
    trainSize: Number(values.train),
    valSize: Number(values.val),
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
const cmp = (c: PairedComparison) => `${c.diff >= 0 ? '+' : ''}${c.diff.toFixed(3)} [${c.lo.toFixed(3)}, ${c.hi.toFixed(3)}] ${c.mcnemar ? `${c.mcnemar.b01}/${c.mcnemar.b10}` : ''} p=${c.pValue.toPrecision(2)} ${c.verdict}`;

const runs: Array<[string, OptimizeRequest]> = [
  ...(['single', 'independent', 'decentralized', 'centralized', 'sequential'] as const).map((t) => [`GEPA ${t}`, request({ topology: t })] as [string, OptimizeRequest]),
  ['GEPA single, no reflection', request({ topology: 'single', ablation: { reflection: 'none' } })],
  ['GEPA single, inverted acceptance', request({ topology: 'single', ablation: { acceptance: 'inverted' } })],
  ['GEPA single, row-unique trait, val rows in training', request({ topology: 'single', model: 'sim:trait?trait=question', reflect: 'sim:reflect?trait=question&max=3', ablation: { trainOn: 'val' } })],
  ['GEPA single, row-unique trait, honest', request({ topology: 'single', model: 'sim:trait?trait=question', reflect: 'sim:reflect?trait=question&max=3' })],
  ['MIPRO single', request({ topology: 'single', method: 'mipro' })],
];
const only = values.only?.split(',');
const results: unknown[] = [];
console.log(`data ${data} (${rows.size} rows); budget ${budget}; train ${values.train}, val ${values.val}; seed ${seed}; tools ${values.tools}`);
console.log('| run | val seed | val best | val paired (b01/b10) | held-out seed | held-out best | held-out paired | spent | wall s |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [label, req] of runs) {
  if (only && !only.some((o) => label.includes(o))) continue;
  const t0 = performance.now();
  const o = await runOptimize(req, values.tools === 'gold' ? { sandbox: () => goldSandbox((id) => rows.get(id)) } : { closeRuntime: false });
  const s = o.summary;
  const wall = (performance.now() - t0) / 1000;
  console.log(`| ${label} | ${f(s.validation.seed)} | ${f(s.validation.best)} | ${cmp(s.validation.comparison)} | ${s.heldout ? f(s.heldout.seed) : ''} | ${s.heldout ? f(s.heldout.best) : ''} | ${s.heldout ? cmp(s.heldout.comparison) : ''} | ${s.spent}/${s.budget} | ${wall.toFixed(1)} |`);
  if (s.spent > s.budget) throw new Error(`${label}: spent ${s.spent} > budget ${s.budget}`);
  results.push({ label, out: o.outDir, wall_s: wall, validation: s.validation, heldout: s.heldout, spent: s.spent, budget: s.budget, stop: s.stop_reason, best: s.best, lineage: s.lineage, tokens: s.tokens });
}
writeFileAtomic(values.out!, JSON.stringify({ data, budget, seed, tools: values.tools, notice: 'simulator calibration fixture (sim:trait / sim:reflect), not a model result', results }, null, 1) + '\n');
console.log(`written ${values.out}`);
process.exit(0);
