import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import { ModelClient } from '../model/client.ts';
import { startSimServer, type ChatBody, type SimRequestContext, type SimServer } from '../sim/server.ts';
import { BUNDLED_SAMPLE, loadDatasetFile } from './dataset.ts';
import { goldSandbox } from './gold-sandbox.ts';
import { readToolhopSettings } from './settings.ts';
import { planToolhopTeam, runToolhopTeam, type ToolhopTeamOptions, type ToolhopTeamOutcome } from './team.ts';
import { toolhopTeamResponder } from './team-sim.ts';

// The decentralized team with its members on the OpenAI Agents SDK (`--framework openai-agents`) against the same
// team on toolgauge's tool loop: the real simulator server over HTTP, the same rows, policies whose draws depend
// only on the instance, the agent and the trial (so both teams' members meet the same coins). The tools are stubbed
// (each hop returns its gold intermediate answer): what is compared is the team, not dataset Python.
const byId = new Map(loadDatasetFile(BUNDLED_SAMPLE).entries.flatMap((e) => (e.ok ? [[e.id, e.row] as const] : [])));
const SAMPLE = [...byId.values()].slice(0, 3);
const run = readConfig({});
const settings = readToolhopSettings({ TOOLHOP_ALLOW_DATASET_EXEC: '1' });
const sandbox = goldSandbox((id) => byId.get(id));
/** Every request the simulator answered, as the endpoint saw it (recording is switched on by a test). */
let seen: Array<Record<string, unknown>> | undefined;
let sim: SimServer;
beforeAll(async () => {
  const team = toolhopTeamResponder((id) => byId.get(id));
  sim = await startSimServer({
    responders: {
      toolhop: {
        chat: (spec, body, ctx) => {
          seen?.push(requestView(body as ChatBody & Record<string, unknown>, ctx));
          return team.chat!(spec, body, ctx);
        },
      },
    },
  });
});
afterAll(() => sim.close());

/**
 * A request without what only differs in spelling on the wire: a tool call's arguments as the JSON value they are
 * (the tool loop re-serialises them, the SDK sends the model's text back), and an assistant message's missing
 * content as null (the SDK writes `content: null` beside tool calls, the tool loop leaves it out).
 */
function requestView(body: ChatBody & Record<string, unknown>, ctx: SimRequestContext): Record<string, unknown> {
  const { model: _model, messages, tools, stream: _stream, ...rest } = body;
  return {
    agent: ctx.agent,
    trial: ctx.trial,
    instance: ctx.instance,
    ...rest,
    tools: (tools ?? []).map((t) => t.function.name),
    messages: messages.map((m) => ({
      ...(m.role === 'assistant' ? { content: null } : {}),
      ...m,
      ...(m.tool_calls
        ? {
            tool_calls: m.tool_calls.map((c) => ({
              ...c,
              function: { name: c.function.name, arguments: JSON.parse(c.function.arguments || '{}') },
            })),
          }
        : {}),
    })),
  };
}

/** JSON with every object's keys sorted: two requests compare whatever order their fields were written in. */
function canonical(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(canonical).join(',')}]`;
  if (x && typeof x === 'object')
    return `{${Object.keys(x)
      .sort()
      .filter((k) => (x as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((x as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(x);
}

const client = (model: string) =>
  new ModelClient({ baseUrl: sim.url, model, timeoutMs: 30_000, retries: 1, concurrency: 16 });

async function teamOn(model: string, opts: ToolhopTeamOptions): Promise<ToolhopTeamOutcome[]> {
  const plan = planToolhopTeam(opts);
  const c = client(model);
  return Promise.all(
    SAMPLE.map((row) => runToolhopTeam(row, { sandbox: () => sandbox, run, settings, client: c }, plan)),
  );
}

/** What a row's run decided, member by member and for the team. */
function decisions(o: ToolhopTeamOutcome) {
  return {
    correct: o.result.correct,
    rule: o.result.rule,
    error: o.result.error,
    predicted: o.prediction.predicted_answer,
    answered_by: o.team?.answered_by,
    forced_final: o.trace.forced_final,
    members: o.trace.team.runs.map((r) => ({
      agent: r.agent,
      round: r.round,
      answer: r.answer,
      tools: r.tool_executions.map((t) => t.name),
      forced: r.forcedFinal,
      exhausted: r.exhausted,
    })),
    vote: o.team?.vote,
  };
}

const POLICIES = ['sim:oracle', 'sim:wrong', 'sim:coin?p=0.5&seed=7', 'sim:coin?p=0.5&seed=11&wrong=diverse'];
const TEAM = { topology: 'decentralized', agents: 3, rounds: 2 } as const;

describe('--framework openai-agents: the decentralized team on the Agents SDK agrees with the built-in team', () => {
  it.each(POLICIES)('%s: the same verdict, answers, votes and tool calls on every sample row', async (model) => {
    const [builtin, agents] = await Promise.all([
      teamOn(model, TEAM),
      teamOn(model, { ...TEAM, framework: 'openai-agents' }),
    ]);
    for (const [i, row] of SAMPLE.entries()) {
      const a = agents[i]!;
      expect(a.trace.team.framework).toBe('openai-agents');
      expect(builtin[i]!.trace.team.framework).toBe('builtin');
      expect(a.result.error, `${model} row ${row.id}: ${a.trace.team.runs.map((r) => r.error).join(' / ')}`).toBeNull();
      expect(decisions(a), `${model} row ${row.id}`).toEqual(decisions(builtin[i]!));
      // Every member ran its tool chain through the executor and paid for it: 2 rounds × 3 members.
      expect(a.trace.team.runs).toHaveLength(6);
      expect(a.team!.cost.total.modelCalls).toBe(builtin[i]!.team!.cost.total.modelCalls);
      expect(a.prediction.usage.total_tokens).toBeGreaterThan(0);
    }
    // The oracle's and the shared wrong answer are unanimous; the coins split some votes (else they test nothing).
    const predicted = agents.map((o) => o.prediction.predicted_answer);
    if (model === 'sim:oracle') expect(predicted).toEqual(SAMPLE.map((r) => String(r.answer)));
    if (model === 'sim:wrong') for (const [i, r] of SAMPLE.entries()) expect(predicted[i]).not.toBe(String(r.answer));
    const split = agents.filter((o) => Object.keys(o.team!.vote!.counts).length > 1).length;
    if (model.startsWith('sim:coin')) expect(split, 'rows whose last round split').toBeGreaterThan(0);
  });

  it('sends the endpoint the same requests: messages, tools, headers, seeds and sampling', async () => {
    const requests = async (opts: ToolhopTeamOptions) => {
      seen = [];
      await teamOn('sim:coin?p=0.5&seed=7', opts);
      const out = seen.map(canonical).sort();
      seen = undefined;
      return out;
    };
    // With the turn budget, and out of turns (then every member's last request is the final-answer call).
    for (const maxTurns of [9, 1]) {
      const builtin = await requests({ ...TEAM, maxTurns });
      const agents = await requests({ ...TEAM, maxTurns, framework: 'openai-agents' });
      expect(agents.length).toBeGreaterThan(SAMPLE.length * 6);
      expect(agents).toEqual(builtin);
    }
  });

  it('a member out of turns gets the final-answer call, as in the tool loop', async () => {
    const opts = { ...TEAM, maxTurns: 1 };
    const [builtin, agents] = await Promise.all([
      teamOn('sim:oracle', opts),
      teamOn('sim:oracle', { ...opts, framework: 'openai-agents' }),
    ]);
    for (const [i, row] of SAMPLE.entries()) {
      expect(decisions(agents[i]!), `row ${row.id}`).toEqual(decisions(builtin[i]!));
      for (const r of agents[i]!.trace.team.runs) {
        expect(r).toMatchObject({ exhausted: true, forcedFinal: true });
        expect(r.model_calls.map((c) => c.purpose)).toEqual(['turn', 'final_answer']);
      }
    }
  });

  it('an endpoint that refuses every request is an error, not a wrong answer, as with the built-in team', async () => {
    // Port 1 on loopback: nothing listens.
    const down = new ModelClient({
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'sim:oracle',
      timeoutMs: 2000,
      retries: 0,
      concurrency: 4,
    });
    const o = await runToolhopTeam(
      SAMPLE[0]!,
      { sandbox: () => sandbox, run, settings, client: down },
      { ...TEAM, framework: 'openai-agents' },
    );
    expect(o.result).toMatchObject({ correct: false, error: expect.stringMatching(/no agent gave an answer/) });
    expect(o.prediction.error_kind).toBe('endpoint');
    expect(o.trace.team.runs).toHaveLength(6);
    for (const r of o.trace.team.runs) expect(r.error).toMatch(/Connection error|ECONNREFUSED|fetch failed/i);
  });

  it('refuses a topology other than decentralized', () => {
    expect(() => planToolhopTeam({ topology: 'independent', framework: 'openai-agents' })).toThrow(
      /decentralized team only/,
    );
    expect(() => readToolhopSettings({ TOOLHOP_TOPOLOGY: 'sequential', TOOLHOP_FRAMEWORK: 'openai_agents' })).toThrow(
      /TOOLHOP_FRAMEWORK \(--framework\) openai-agents runs the decentralized team only/,
    );
    expect(
      readToolhopSettings({ TOOLHOP_TOPOLOGY: 'decentralized', TOOLHOP_FRAMEWORK: 'openai_agents' }).framework,
    ).toBe('openai-agents');
  });
});
