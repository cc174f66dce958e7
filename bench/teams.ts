// Voting calibration on the simulator: `npx tsx bench/teams.ts [--data FILE] [--seeds 0,1,2] [--p 0.6] [--agents 5]
// [--sandbox pyodide|python] [--concurrency 16] [--out FILE]`.
// For each simulator seed, every row is solved twice on `sim:coin?p=P&seed=S` — by the single agent and by an
// independent team of N voters — in one process, against one simulator server and one sandbox, with the real
// dataset tools. Reported per seed: each accuracy with its 95% CI, the binomial majority probability the team should
// approach (P(Binomial(N, p) > N/2): wrong coins share one wrong value, so the vote is a plain majority), the paired
// comparison team vs single (pairedCompare: exact McNemar + paired bootstrap CI, "credible" = both agree), the
// team's cost and wall time. Default data: the 182 real rows in ../shared/data (else the bundled sample).
// `--matrix`: instead, every topology × communication format (default sizes) on `sim:oracle` over all rows:
// completed rows, harness errors, accuracy, report parse rate, roles seen in the traces, tokens, wall time.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readConfig } from '../harness/core/config.ts';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import { fromRoot } from '../harness/core/paths.ts';
import { ModelClient } from '../harness/model/client.ts';
import { createSandbox } from '../harness/sandbox/index.ts';
import { readToolhopSettings } from '../harness/toolhop/settings.ts';
import { startSimServer } from '../harness/sim/server.ts';
import { estimateRate, pairedCompare } from '../harness/stats/index.ts';
import { BUNDLED_SAMPLE, loadDatasetFile } from '../harness/toolhop/dataset.ts';
import type { ToolhopRow } from '../harness/toolhop/row.ts';
import { runToolhopInstance } from '../harness/toolhop/run-instance.ts';
import { scoreAnswer } from '../harness/toolhop/score.ts';
import { COMM_FORMATS, TEAM_TOPOLOGIES } from '../harness/agent/team/index.ts';
import { planToolhopTeam, runToolhopTeam } from '../harness/toolhop/team.ts';
import { toolhopTeamResponder } from '../harness/toolhop/team-sim.ts';
import { round } from './lib.ts';

const shared = fromRoot('..', 'shared', 'data', 'toolhop', 'ToolHop.sample.json');
const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    seeds: { type: 'string', default: '0' },
    p: { type: 'string', default: '0.6' },
    agents: { type: 'string', default: '5' },
    sandbox: { type: 'string', default: 'pyodide' },
    concurrency: { type: 'string', default: '16' },
    out: { type: 'string' },
    matrix: { type: 'boolean' },
  },
});
const data = values.data ?? (existsSync(shared) ? shared : BUNDLED_SAMPLE);
const p = Number(values.p);
const agents = Number(values.agents);
const seeds = values.seeds!.split(',').map(Number);
const concurrency = Number(values.concurrency);

const rows = new Map(loadDatasetFile(data).entries.flatMap((e) => (e.ok ? [[e.id, e.row] as const] : [])));
const cfg = readConfig({ TOOLGAUGE_SANDBOX: values.sandbox });
const settings = readToolhopSettings({ TOOLHOP_ALLOW_DATASET_EXEC: '1' });
const sim = await startSimServer({ responders: { toolhop: toolhopTeamResponder((id) => rows.get(id)) } });
const sandbox = createSandbox({
  backend: cfg.sandbox.backend,
  callTimeoutMs: cfg.sandbox.toolTimeoutMs,
  pythonPath: cfg.sandbox.pythonPath,
});
const deps = { sandbox: () => sandbox, run: cfg, settings };
const plan = planToolhopTeam({ topology: 'independent', agents });

/** P(more than half of n agents are right), each right with probability p. */
function majorityProbability(n: number, q: number): number {
  let s = 0;
  let c = 1; // C(n, k), built up as k grows
  for (let k = 0; k <= n; k++) {
    if (2 * k > n) s += c * q ** k * (1 - q) ** (n - k);
    c = (c * (n - k)) / (k + 1);
  }
  return s;
}

/** Run `job` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: readonly T[], limit: number, job: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await job(items[i]!);
      }
    }),
  );
  return out;
}

const estimate = (xs: number[]) => {
  const e = estimateRate(xs, { denominator: 'ToolHop rows' });
  return { value: round(e.value, 4), lo: round(e.lo, 4), hi: round(e.hi, 4), n: e.n };
};

async function oracleMatrix() {
  const client = new ModelClient({ baseUrl: sim.url, model: 'sim:oracle', timeoutMs: 30_000, retries: 2, concurrency });
  const list: ToolhopRow[] = [...rows.values()];
  const out = [];
  for (const topology of TEAM_TOPOLOGIES) {
    for (const comm of COMM_FORMATS) {
      const plan = planToolhopTeam({ topology, comm });
      const roles = plan.options.lead ? [plan.options.lead, ...plan.options.roles] : plan.options.roles;
      const t0 = performance.now();
      const res = await pool(list, concurrency, (row) => runToolhopTeam(row, { ...deps, client }, plan));
      const wall = (performance.now() - t0) / 1000;
      const reports = res.reduce((s, o) => s + (o.team?.parse.reports ?? 0), 0);
      const parsed = res.reduce((s, o) => s + (o.team?.parse.parsed ?? 0), 0);
      const row = {
        topology,
        comm,
        agents: plan.options.agents,
        rounds: plan.options.rounds,
        completed: res.filter((o) => o.result.error === null).length,
        harness_errors: res.filter((o) => o.prediction.error_kind === 'harness').length,
        errors: res
          .filter((o) => o.result.error)
          .slice(0, 3)
          .map((o) => `${o.result.id}: ${o.result.error}`),
        correct: res.filter((o) => o.result.correct).length,
        every_role_in_every_trace: res.every((o) => roles.every((r) => o.trace.team.runs.some((x) => x.role === r))),
        parse_rate: reports ? round(parsed / reports, 4) : null,
        tokens_per_instance: round(res.reduce((s, o) => s + o.prediction.usage.total_tokens, 0) / res.length, 0),
        model_calls_per_instance: round(
          res.reduce((s, o) => s + (o.team?.cost.total.modelCalls ?? 0), 0) / res.length,
          1,
        ),
        tool_calls_per_instance: round(res.reduce((s, o) => s + o.prediction.tool_calls, 0) / res.length, 1),
        wall_s: round(wall),
      };
      process.stderr.write(
        `${topology}/${comm}: ${row.completed}/${list.length} completed, ${row.correct} correct, parse ${row.parse_rate}, ${row.wall_s}s\n`,
      );
      out.push(row);
    }
  }
  return out;
}

if (values.matrix) {
  const result = {
    data,
    rows: rows.size,
    sandbox: cfg.sandbox.backend,
    node: process.version,
    matrix: await oracleMatrix(),
  };
  const text = JSON.stringify(result, null, 2);
  if (values.out) writeFileAtomic(values.out, text + '\n');
  process.stdout.write(text + '\n');
  await sandbox.close();
  await sim.close();
  process.exit(0);
}

const perSeed = [];
for (const seed of seeds) {
  const model = `sim:coin?p=${p}&seed=${seed}`;
  const client = new ModelClient({ baseUrl: sim.url, model, timeoutMs: 30_000, retries: 2, concurrency });
  const list: ToolhopRow[] = [...rows.values()];
  const t0 = performance.now();
  const single = await pool(list, concurrency, (row) => runToolhopInstance(row, { ...deps, client }));
  const singleS = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const team = await pool(list, concurrency, (row) => runToolhopTeam(row, { ...deps, client }, plan));
  const teamS = (performance.now() - t1) / 1000;

  const errors = [...single, ...team].filter((o) => o.result.error).map((o) => `${o.result.id}: ${o.result.error}`);
  const a = new Map(single.map((o) => [o.result.id, o.result.correct ? 1 : 0]));
  const b = new Map(team.map((o) => [o.result.id, o.result.correct ? 1 : 0]));
  const cmp = pairedCompare(a, b, { metric: 'accuracy', seed: 0 });
  // Per instance, how many of the team's agents were right (the vote should follow: right iff > N/2).
  const agentsRight = team.map(
    (o, i) =>
      (o.trace.team.vote?.ballots ?? []).filter(
        (x) => x.counted && scoreAnswer(list[i]!.answer, `<answer>${x.answer}</answer>`).correct,
      ).length,
  );
  const tokens = team.reduce((s, o) => s + o.prediction.usage.total_tokens, 0);
  const singleTokens = single.reduce((s, o) => s + o.prediction.usage.total_tokens, 0);
  const correctTeam = [...b.values()].reduce((s, x) => s + x, 0);
  const correctSingle = [...a.values()].reduce((s, x) => s + x, 0);
  perSeed.push({
    model,
    rows: list.length,
    harness_errors: errors.length,
    error_examples: errors.slice(0, 3),
    single: {
      accuracy: estimate([...a.values()]),
      tokens: singleTokens,
      tokens_per_correct: round(singleTokens / correctSingle, 1),
      wall_s: round(singleS),
    },
    team: {
      topology: `independent-${agents}`,
      accuracy: estimate([...b.values()]),
      agent_accuracy: round(agentsRight.reduce((s, k) => s + k, 0) / (agents * list.length), 4),
      vote_follows_majority: team.every(
        (o, i) => (o.result.correct ? 1 : 0) === (2 * agentsRight[i]! > agents ? 1 : 0),
      ),
      tokens,
      tokens_per_correct: round(tokens / correctTeam, 1),
      model_calls: team.reduce((s, o) => s + (o.team?.cost.total.modelCalls ?? 0), 0),
      wall_s: round(teamS),
    },
    binomial_majority: round(majorityProbability(agents, p), 4),
    paired: {
      diff: round(cmp.diff, 4),
      ci95: [round(cmp.lo, 4), round(cmp.hi, 4)],
      gains: cmp.mcnemar?.b01,
      losses: cmp.mcnemar?.b10,
      p_mcnemar: round(cmp.pValue, 4),
      verdict: cmp.verdict,
    },
  });
  process.stderr.write(
    `seed ${seed}: single ${correctSingle}/${list.length}, team ${correctTeam}/${list.length}, ${cmp.verdict}\n`,
  );
}

const result = {
  data,
  rows: rows.size,
  p,
  agents,
  sandbox: cfg.sandbox.backend,
  node: process.version,
  seeds: perSeed,
};
const text = JSON.stringify(result, null, 2);
if (values.out) writeFileAtomic(values.out, text + '\n');
process.stdout.write(text + '\n');
await sandbox.close();
await sim.close();
