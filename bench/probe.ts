// Probe suite wall time on the simulator: `npx tsx bench/probe.ts [--repeat N]`.
//
// End to end: `toolgauge probe` as a user runs it (Vitest's Node API, 4 suite files, the simulator over HTTP,
// cases.jsonl / summary.json / report.md written), for both transports, on toolgauge's 312 generated cases and —
// when ../shared/data is present — Toolhound's 152 dev cases; plus one run where every failure triggers a
// counterfactual re-ask. Then the per-case pipeline alone (no Vitest) to show where the time goes.
// The simulator is a calibration fixture: these times measure the harness, not a model.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import { fromRoot } from '../harness/core/paths.ts';
import { ModelClient } from '../harness/model/client.ts';
import { loadCases } from '../harness/probe/cases/load.ts';
import { runProbeCases } from '../harness/probe/run/batch.ts';
import { resolveTemplate } from '../harness/probe/run/template.ts';
import { createProbeResponder, SIM_DROPPING_TEMPLATE } from '../harness/probe/sim-responder.ts';
import { startSimServer } from '../harness/sim/server.ts';

const repeat = Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 3;
const TOOLHOUND = fromRoot('..', 'shared', 'data', 'toolhound');
const work = mkdtempSync(join(tmpdir(), 'tg-bench-probe-'));
const dropping = join(work, 'dropping.jinja');
writeFileSync(dropping, SIM_DROPPING_TEMPLATE);

interface Run {
  label: string;
  args: string[];
}
const runs: Run[] = [
  { label: 'own 312 cases, chat, sim:oracle', args: ['--model', 'sim:oracle'] },
  { label: 'own 312 cases, completions, sim:oracle', args: ['--model', 'sim:oracle', '--transport', 'completions'] },
  {
    label: 'own 312 cases, completions, template dropping calls (40 counterfactuals)',
    args: ['--model', 'sim:oracle', '--transport', 'completions', '--template', dropping],
  },
  { label: 'own 312 cases, chat, sim:fault?cause=parser_gap', args: ['--model', 'sim:fault?cause=parser_gap'] },
];
if (existsSync(join(TOOLHOUND, 'dev.jsonl'))) {
  const th = ['--cases', join(TOOLHOUND, 'dev.jsonl'), '--tools', join(TOOLHOUND, 'tools.yaml')];
  runs.push(
    { label: 'Toolhound 152 dev cases, chat, sim:oracle', args: [...th, '--model', 'sim:oracle'] },
    {
      label: 'Toolhound 152 dev cases, completions, sim:oracle',
      args: [...th, '--model', 'sim:oracle', '--transport', 'completions'],
    },
  );
}

const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  TOOLGAUGE_QUIET_DEFAULT_REPORTER: '1',
  FORCE_COLOR: '0',
};
for (const k of Object.keys(env)) if (/^(TOOLGAUGE_(?!QUIET)|OPENAI_|VITEST)/.test(k)) delete env[k];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: string[] = [];
const figures: Array<{ run: string; cases: number; wall_s: number; runs_s?: number[] }> = [];
process.stdout.write(
  `probe benchmark: ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${repeat} repeats (median)\n\n`,
);
for (const r of runs) {
  const times: number[] = [];
  let n = 0;
  for (let i = 0; i < repeat; i++) {
    const out = join(work, `out-${i}`);
    const t0 = performance.now();
    execFileSync('node', [fromRoot('bin', 'toolgauge.mjs'), 'probe', ...r.args, '--out-dir', out], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: work,
    });
    times.push(performance.now() - t0);
    n = readFileSync(join(out, 'cases.jsonl'), 'utf8').trim().split('\n').length;
    rmSync(out, { recursive: true, force: true });
  }
  const t = median(times);
  rows.push(`| ${r.label} | ${n} | ${(t / 1000).toFixed(2)} s | ${((n / t) * 1000).toFixed(0)} |`);
  figures.push({
    run: r.label,
    cases: n,
    wall_s: Math.round(t) / 1000,
    runs_s: times.map((x) => Math.round(x) / 1000),
  });
  process.stdout.write(
    `${r.label}: ${(t / 1000).toFixed(2)} s for ${n} cases (runs: ${times.map((x) => (x / 1000).toFixed(2)).join(', ')} s)\n`,
  );
}

// The pipeline alone, in process (no Vitest start-up, no reporter): the cost per case.
const cases = loadCases(fromRoot('cases', 'probe', 'cases.jsonl'), { dateContext: '2026-01-15' }).cases;
const byId = new Map(cases.map((c) => [c.id, c]));
const sim = await startSimServer({
  responders: { probe: createProbeResponder({ lookup: (id) => byId.get(id), template: null }) },
});
for (const transport of ['chat', 'completions'] as const) {
  const client = new ModelClient({
    baseUrl: sim.url,
    model: 'sim:oracle',
    timeoutMs: 10_000,
    retries: 1,
    concurrency: 4,
  });
  const template = resolveTemplate({ transport, templateFile: undefined }, '2026-01-15');
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    await runProbeCases(
      cases,
      { client, transport, template, family: 'auto', model: 'sim:oracle', injectedDate: '2026-01-15' },
      4,
    );
    times.push(performance.now() - t0);
  }
  const t = median(times);
  rows.push(
    `| pipeline only (no Vitest), own 312 cases, ${transport}, sim:oracle | ${cases.length} | ${(t / 1000).toFixed(2)} s | ${((cases.length / t) * 1000).toFixed(0)} |`,
  );
  figures.push({
    run: `pipeline only (no Vitest), own 312 cases, ${transport}, sim:oracle`,
    cases: cases.length,
    wall_s: Math.round(t) / 1000,
  });
  process.stdout.write(`pipeline only, ${transport}: ${(t / 1000).toFixed(2)} s for ${cases.length} cases\n`);
}
await sim.close();
rmSync(work, { recursive: true, force: true });

writeFileAtomic(
  fromRoot('results', 'bench', 'probe.json'),
  JSON.stringify(
    {
      simulated: true,
      note: 'the simulator is a calibration fixture: these are harness timings',
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? null, node: process.version },
      repeats: repeat,
      figures,
    },
    null,
    2,
  ) + '\n',
);
process.stdout.write(
  `\n| run | cases | wall time (median of ${repeat}) | cases/s |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`,
);
