import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAVY_TESTS } from '../core/testkit.ts';
import { COMM_FORMATS, TEAM_TOPOLOGIES, voteKey } from '../agent/team/index.ts';
import { readConfig } from '../core/config.ts';
import { readToolhopSettings } from './settings.ts';
import { ModelClient } from '../model/client.ts';
import { startSimServer, type SimServer } from '../sim/server.ts';
import { BUNDLED_SAMPLE, loadDatasetFile } from './dataset.ts';
import { goldSandbox } from './gold-sandbox.ts';
import type { ToolhopRow } from './row.ts';
import { scoreAnswer } from './score.ts';
import { planToolhopTeam, runToolhopTeam, type ToolhopTeamOptions, type ToolhopTeamOutcome } from './team.ts';
import { toolhopTeamResponder } from './team-sim.ts';

// Teams against the real simulator server over HTTP, with the tools stubbed (each hop's tool returns that hop's
// gold intermediate answer): what is under test is the team machinery, the model client and the simulator's team
// contract, not dataset Python.
const rows = new Map(loadDatasetFile(BUNDLED_SAMPLE).entries.flatMap((e) => (e.ok ? [[e.id, e.row] as const] : [])));
const run = readConfig({});
const settings = readToolhopSettings({ TOOLHOP_ALLOW_DATASET_EXEC: '1' });
const deps = { sandbox: () => sandbox, run, settings };
const sandbox = goldSandbox((id) => rows.get(id));
let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({ responders: { toolhop: toolhopTeamResponder((id) => rows.get(id)) } });
});
afterAll(() => sim.close());

const client = (model: string) =>
  new ModelClient({
    baseUrl: sim.url,
    model,
    timeoutMs: 30_000,
    retries: 2,
    concurrency: 16,
    backoff: { baseMs: 5, maxMs: 20 },
  });

async function runAllRows(
  model: string,
  opts: ToolhopTeamOptions,
  trials = 1,
  limit = rows.size,
): Promise<Array<{ row: ToolhopRow; o: ToolhopTeamOutcome }>> {
  const plan = planToolhopTeam(opts);
  const c = client(model);
  const jobs = [...rows.values()]
    .slice(0, limit)
    .flatMap((row) => Array.from({ length: trials }, (_, trial) => ({ row, trial })));
  return Promise.all(
    jobs.map(async ({ row, trial }) => ({ row, o: await runToolhopTeam(row, { ...deps, client: c, trial }, plan) })),
  );
}

const ANSWERER = {
  independent: 'solver',
  decentralized: 'debater',
  centralized: 'manager',
  sequential: 'verifier',
} as const;
/** Small teams keep the matrix quick; every role of the default centralized and sequential teams still runs. */
const SIZE = {
  independent: { agents: 3 },
  decentralized: { agents: 2, rounds: 2 },
  centralized: {},
  sequential: {},
} as const;

describe.each(TEAM_TOPOLOGIES)('%s on sim:oracle', (topology) => {
  // Every format on 4 of the 11 sample rows by default (all 11 with TOOLGAUGE_HEAVY_TESTS=1).
  it.each(COMM_FORMATS)('%s: the sample rows correct, every role in the trace, every report parsed', async (comm) => {
    const plan = planToolhopTeam({ topology, comm, ...SIZE[topology] });
    const roles = plan.options.lead ? [plan.options.lead, ...plan.options.roles] : plan.options.roles;
    const limit = HEAVY_TESTS ? 11 : 4;
    const out = await runAllRows('sim:oracle', { topology, comm, ...SIZE[topology] }, 1, limit);
    expect(out).toHaveLength(limit);
    for (const { row, o } of out) {
      const where = `${topology}/${comm} row ${row.id}`;
      expect(o.result.error, where).toBeNull();
      expect(o.result.correct, where).toBe(true);
      expect(o.prediction.final_message, where).toContain(`<answer>${row.answer}</answer>`);
      expect(o.team!.answered_by, where).toMatch(new RegExp(`^${ANSWERER[topology]}`));
      const team = o.trace.team;
      expect(new Set(team.runs.map((r) => r.role)), where).toEqual(new Set(roles));
      for (const r of team.runs) {
        expect(r.error, where).toBeNull();
        expect(r.messages.map((m) => m.role).slice(0, 3), `${where} ${r.agent}`).toEqual([
          'system',
          'user',
          'assistant',
        ]);
        // Every tool-loop run followed the chain; the delegation step has no tools.
        expect(r.tool_executions.length, `${where} ${r.agent} ${r.phase}`).toBe(
          r.phase === 'delegate' ? 0 : Object.keys(row.tools).length,
        );
      }
      expect(o.team!.parse.rate, where).toBe(1);
      expect(o.team!.parse.reports, where).toBeGreaterThan(0);
      if (topology === 'centralized') expect(o.team!.parse.delegationsParsed, where).toBe(plan.options.agents);
      // Costs add up: the instance total is the sum over agents, and the model calls are the trace's.
      const byAgent = Object.values(o.team!.cost.byAgent);
      expect(byAgent.reduce((s, c) => s + c.totalTokens, 0)).toBe(o.prediction.usage.total_tokens);
      expect(o.team!.cost.total.modelCalls).toBe(o.trace.model_calls.length);
      expect(o.prediction.tool_calls).toBe(o.trace.tool_executions.length);
    }
  });
});

describe('malformed reports (sim:fault?cause=format_failure)', () => {
  it.each(TEAM_TOPOLOGIES)('%s: nothing parses, the answers are still right', async (topology) => {
    for (const comm of ['semi_structured', 'structured'] as const) {
      const out = await runAllRows('sim:fault?cause=format_failure', { topology, comm, ...SIZE[topology] }, 1, 3);
      for (const { row, o } of out) {
        expect(o.result.correct, `${topology}/${comm} ${row.id}`).toBe(true);
        expect(o.team!.parse.reports).toBeGreaterThan(0);
        expect(o.team!.parse.parsed).toBe(0);
        expect(o.team!.parse.delegationsParsed).toBe(0);
        for (const h of o.trace.team.handoffs) expect(h.errors.length, JSON.stringify(h)).toBeGreaterThan(0);
      }
    }
  });
});

describe('sim:coin?p=0.6 with an independent team of 5', () => {
  it('each agent has its own coin, wrong agents agree, and the team is right exactly when 3 or more agents are', async () => {
    // 11 rows × 5 trials = 55 instances (the coin is drawn per instance, agent and trial).
    const out = await runAllRows('sim:coin?p=0.6&seed=7', { topology: 'independent', agents: 5 }, 5);
    let mixed = 0;
    let agentsRight = 0;
    for (const { row, o } of out) {
      const ballots = o.trace.team.vote!.ballots;
      expect(ballots).toHaveLength(5);
      // Each agent's answer scored on its own, with the benchmark's scorer (not the simulator's coin).
      const right = ballots.map((b) => scoreAnswer(row.answer, `<answer>${b.answer}</answer>`).correct);
      const wrongKeys = new Set(ballots.filter((_, i) => !right[i]).map((b) => voteKey(b.answer!)));
      expect(wrongKeys.size, `row ${row.id}`).toBeLessThanOrEqual(1);
      const k = right.filter(Boolean).length;
      agentsRight += k;
      if (k > 0 && k < 5) mixed++;
      expect(o.result.correct, `row ${row.id} trial ${o.result.trial}: ${k} of 5 agents right`).toBe(k >= 3);
    }
    // Independent coins: with p = 0.6 an instance has all five agents agree with probability 0.6⁵ + 0.4⁵ ≈ 0.09, so
    // about 50 of 55 are mixed; agents sharing one coin would give none. About 60% of the 275 agents are right.
    expect(mixed).toBeGreaterThan(40);
    expect(agentsRight / 275).toBeGreaterThan(0.48);
    expect(agentsRight / 275).toBeLessThan(0.72);
  });
});

describe('runToolhopTeam', () => {
  it('votes on the answer tag the scorer reads: the last of two, like predicted_answer', async () => {
    const row = rows.get('1')!;
    const twoTags = await startSimServer({
      responders: {
        toolhop: {
          chat: () => ({ content: `Draft <answer>draft-value</answer>. Checked: <answer>${row.answer}</answer>` }),
        },
      },
    });
    try {
      const c = new ModelClient({
        baseUrl: twoTags.url,
        model: 'sim:oracle',
        timeoutMs: 30_000,
        retries: 0,
        concurrency: 4,
      });
      const o = await runToolhopTeam(row, { ...deps, client: c }, { topology: 'independent', agents: 2 });
      expect(o.trace.team.vote!.ballots.map((b) => b.answer)).toEqual([String(row.answer), String(row.answer)]);
      expect(o.prediction.predicted_answer).toBe(String(row.answer));
      expect(o.result.correct).toBe(true);
    } finally {
      await twoTags.close();
    }
  });

  it('refuses to run dataset tools unless allowed, like the single agent', async () => {
    const row = rows.get('1')!;
    const o = await runToolhopTeam(
      row,
      { ...deps, settings: readToolhopSettings({}), client: client('sim:oracle') },
      { topology: 'independent' },
    );
    expect(o.result).toMatchObject({ correct: false, error: expect.stringMatching(/TOOLHOP_ALLOW_DATASET_EXEC=1/) });
    expect(o.prediction.error_kind).toBe('dataset_exec_disabled');
    expect(o.team).toBeNull();
  });

  it('an endpoint that fails every request is an error, not a wrong answer', async () => {
    // Port 1 on loopback: nothing listens, every request is refused.
    const down = new ModelClient({
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'sim:oracle',
      timeoutMs: 2000,
      retries: 0,
      concurrency: 4,
    });
    const o = await runToolhopTeam(rows.get('1')!, { ...deps, client: down }, { topology: 'sequential' });
    expect(o.result.error).toMatch(/last stage \(verifier\) failed/);
    expect(o.prediction.error_kind).toBe('endpoint');
    expect(o.trace.team.runs).toHaveLength(4);
  });
});
