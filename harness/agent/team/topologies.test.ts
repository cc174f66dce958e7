import { describe, expect, it } from 'vitest';
import { DELEGATION_MARKER } from './centralized.ts';
import { renderReport } from './comm.ts';
import { resolveTeamOptions, type Roster, type TeamOptionsInput } from './options.ts';
import { runTeam } from './team.ts';
import {
  scriptedClient,
  systemText,
  testTask,
  toolCall,
  toolResults,
  userText,
  type SeenCall,
  type Scripted,
} from './testing.ts';

const ROSTER: Roster = {
  independent: 'solver',
  decentralized: 'debater',
  centralized: { manager: 'manager', pool: ['w1', 'w2', 'w3'] },
  sequential: {
    pool: ['verifier', 'planner', 'caller', 'checker'],
    order: ['planner', 'caller', 'checker', 'verifier'],
  },
};
const opts = (o: TeamOptionsInput) => resolveTeamOptions(o, ROSTER);

/** One tool call, then a final message: the shape of every agent in these tests. */
const solve = (call: SeenCall, final: string): Scripted =>
  toolResults(call) === 0 && call.tools?.length ? { tool_calls: [toolCall('lookup')] } : { content: final };
const roundOf = (call: SeenCall) => Number(/Debate round (\d+)/.exec(userText(call))?.[1] ?? 1);

describe('independent', () => {
  it('N agents solve alone with their own seeds; the team answers the majority', async () => {
    const answers = ['x', 'y', 'y', 'z', 'y'];
    const { client, calls } = scriptedClient((c) =>
      solve(c, `<answer>${answers[Number(c.agent.split('-')[1])]}</answer>`),
    );
    const team = await runTeam(testTask(client), opts({ topology: 'independent' }));
    expect(team.runs.map((r) => r.agent)).toEqual(['solver-0', 'solver-1', 'solver-2', 'solver-3', 'solver-4']);
    // Nobody sees anybody: every request's user message is the bare task.
    expect(new Set(calls.map(userText))).toEqual(new Set(['Q?']));
    expect(calls.every((c) => systemText(c).includes('[ANSWERS]'))).toBe(true);
    for (const r of team.runs)
      expect(new Set(calls.filter((c) => c.agent === r.agent).map((c) => c.seed))).toEqual(new Set([100 + r.seed]));
    expect(new Set(team.runs.map((r) => r.seed)).size).toBe(5);
    expect(team.vote!.counts).toEqual({ x: 1, y: 3, z: 1 });
    expect(team.runs[team.final!]!.agent).toBe('solver-1');
    expect(team.handoffs.map((h) => h.to)).toEqual(Array(5).fill(['vote']));
  });

  it('failed agents do not vote; if all fail the team fails', async () => {
    const answers = ['x', 'y', 'y', 'x', 'x'];
    const down = new Set(['solver-0', 'solver-3']);
    const { client } = scriptedClient((c) =>
      down.has(c.agent) ? 'fail' : solve(c, `<answer>${answers[Number(c.agent.split('-')[1])]}</answer>`),
    );
    const team = await runTeam(testTask(client), opts({ topology: 'independent' }));
    expect(team.error).toBeNull();
    expect(team.vote!.counts).toEqual({ y: 2, x: 1 });
    expect(team.runs[team.final!]!.agent).toBe('solver-1');
    expect(team.runs.filter((r) => r.error).map((r) => r.agent)).toEqual(['solver-0', 'solver-3']);
    expect(team.handoffs.map((h) => h.from)).toEqual(['solver-1', 'solver-2', 'solver-4']);

    const { client: dead } = scriptedClient(() => 'fail');
    const none = await runTeam(testTask(dead), opts({ topology: 'independent', agents: 3 }));
    expect(none.final).toBeNull();
    expect(none.error).toMatch(/no agent gave an answer \(3 of 3 failed\)/);
  });

  it('counts each agent’s model calls, tokens and tool calls', async () => {
    const { client } = scriptedClient((c) => solve(c, '<answer>1</answer>'));
    const team = await runTeam(testTask(client), opts({ topology: 'independent', agents: 3 }));
    for (const id of ['solver-0', 'solver-1', 'solver-2']) {
      expect(team.cost.byAgent[id]).toMatchObject({
        modelCalls: 2,
        promptTokens: 20,
        completionTokens: 6,
        totalTokens: 26,
        toolCalls: 1,
      });
    }
    expect(team.cost.total).toMatchObject({
      modelCalls: 6,
      promptTokens: 60,
      completionTokens: 18,
      totalTokens: 78,
      toolCalls: 3,
    });
  });
});

describe('decentralized', () => {
  it('from round 2 each debater sees its own previous answer and the others’, and the last round votes', async () => {
    const byRound: Record<number, string[]> = { 1: ['a', 'b', 'b'], 2: ['a', 'a', 'c'] };
    const { client, calls } = scriptedClient((c) =>
      solve(
        c,
        `reasoning of ${c.agent} in round ${roundOf(c)}\n<answer>${byRound[roundOf(c)]![Number(c.agent.split('-')[1])]}</answer>`,
      ),
    );
    const team = await runTeam(testTask(client), opts({ topology: 'decentralized' }));
    expect(team.runs.map((r) => `${r.agent}@${r.round}`)).toEqual([
      'debater-0@1',
      'debater-1@1',
      'debater-2@1',
      'debater-0@2',
      'debater-1@2',
      'debater-2@2',
    ]);
    const firstRound = calls.filter((c) => roundOf(c) === 1);
    expect(new Set(firstRound.map(userText))).toEqual(new Set(['Q?']));
    const second = calls.find((c) => c.agent === 'debater-1' && roundOf(c) === 2)!;
    const [own, others] = userText(second).split("The other agents' answers in the previous round:");
    expect(own).toContain('reasoning of debater-1 in round 1');
    expect(others).toContain('=== debater-0 · answer: a ===\nreasoning of debater-0 in round 1');
    expect(others).toContain('=== debater-2 · answer: b ===');
    expect(others).not.toContain('debater-1');
    expect(userText(second)).not.toContain('round 2\n'); // nobody sees the current round
    // Round 1's majority was b; the team answers round 2's vote.
    expect(team.vote!.counts).toEqual({ a: 2, c: 1 });
    expect(team.runs[team.final!]).toMatchObject({ agent: 'debater-0', round: 2 });
    expect(second.seed).toBe(100 + 3 + 1);
    // Round-1 reports went to the two other debaters each; round-2 reports to the vote.
    expect(team.handoffs.filter((h) => h.round === 1).map((h) => [h.from, h.to])).toEqual([
      ['debater-0', ['debater-1', 'debater-2']],
      ['debater-1', ['debater-0', 'debater-2']],
      ['debater-2', ['debater-0', 'debater-1']],
    ]);
    expect(team.handoffs.filter((h) => h.round === 2).every((h) => h.to.join() === 'vote')).toBe(true);
  });

  it('cuts what a debater sees to the report clip and the context budget, and records who saw what', async () => {
    const long = (agent: string) => `${agent}:${'x'.repeat(300)}END`;
    const { client, calls } = scriptedClient((c) => solve(c, `${long(c.agent)}\n<answer>v</answer>`));
    const team = await runTeam(
      testTask(client),
      opts({ topology: 'decentralized', agents: 4, rounds: 3, reportClip: 100, contextBudget: 300 }),
    );
    for (const c of calls.filter((x) => roundOf(x) > 1 && toolResults(x) === 0)) {
      const others = userText(c)
        .split("The other agents' answers in the previous round:\n")[1]!
        .split('\n\nCheck their evidence')[0]!;
      expect(Array.from(others).length).toBeLessThanOrEqual(300);
      expect(others).toContain('END'); // clipped from the front: the end of a report (its answer) survives
      expect((others.match(/===/g) ?? []).length / 2).toBe(2); // 2 of the 3 others (about 130 characters each) fit in 300
    }
    // Selection keeps the latest reports in agent order, so debater-0's report reached nobody in round 3.
    expect(team.handoffs.filter((h) => h.round === 2).map((h) => [h.from, h.to])).toEqual([
      ['debater-0', []],
      ['debater-1', ['debater-2', 'debater-3']],
      ['debater-2', ['debater-0', 'debater-1', 'debater-3']],
      ['debater-3', ['debater-0', 'debater-1', 'debater-2']],
    ]);
    // Rounds 1 and 2 each hand 3 of their 4 reports to peers (the same cut), round 3 hands 4 to the vote.
    expect(team.parse.reports).toBe(3 + 3 + 4);
  });
});

describe('centralized', () => {
  const delegation = (c: SeenCall) => userText(c).includes(DELEGATION_MARKER);

  it('the manager delegates without tools, each worker sees only its own delegation, and the manager answers', async () => {
    const { client, calls } = scriptedClient((c) => {
      if (delegation(c))
        return { content: '<delegate to="w1">ONLY-FOR-W1</delegate>\n<delegate to="w2">ONLY-FOR-W2</delegate>' };
      if (c.agent === 'manager') return solve(c, '<answer>final</answer>');
      return solve(c, `report of ${c.agent}`);
    });
    const team = await runTeam(testTask(client), opts({ topology: 'centralized' }));
    expect(team.roles).toEqual(['manager', 'w1', 'w2', 'w3']);
    expect(calls[0]).toMatchObject({ agent: 'manager' });
    expect(calls[0]!.tools ?? []).toEqual([]);
    expect(userText(calls[0]!)).toContain('Workers: w1, w2, w3');
    expect(userText(calls[0]!)).toContain('- lookup: Look a value up.');
    const w1 = userText(calls.find((c) => c.agent === 'w1')!);
    expect(w1).toContain('ONLY-FOR-W1');
    expect(w1).not.toContain('ONLY-FOR-W2');
    const w3 = userText(calls.find((c) => c.agent === 'w3')!);
    expect(w3).not.toMatch(/ONLY-FOR/);
    expect(w3).toContain('Work on the question within your role');
    expect(team.handoffs.filter((h) => h.kind === 'delegation').map((h) => [h.to[0], h.ok])).toEqual([
      ['w1', true],
      ['w2', true],
      ['w3', false],
    ]);
    expect(team.parse).toMatchObject({ delegations: 3, delegationsParsed: 2 });
    // Workers do not answer for the team; the manager's synthesis sees every report and does.
    expect(calls.filter((c) => c.agent.startsWith('w')).every((c) => !systemText(c).includes('[ANSWERS]'))).toBe(true);
    const synthesis = calls.filter((c) => c.agent === 'manager' && !delegation(c));
    expect(systemText(synthesis[0]!)).toContain('[ANSWERS]');
    for (const w of ['w1', 'w2', 'w3']) expect(userText(synthesis[0]!)).toContain(`=== ${w} ===\nreport of ${w}`);
    expect(team.runs[team.final!]).toMatchObject({ agent: 'manager', phase: 'synthesize', answer: 'final' });
    expect(team.cost.byAgent.manager).toMatchObject({ modelCalls: 3, toolCalls: 1 });
    expect(team.handoffs.filter((h) => h.kind === 'report').map((h) => [h.from, h.to])).toEqual([
      ['w1', ['manager']],
      ['w2', ['manager']],
      ['w3', ['manager']],
    ]);
  });

  it('in round 2 the manager delegates again, shown the round-1 reports', async () => {
    const { client, calls } = scriptedClient((c) => {
      if (delegation(c)) return { content: ['w1', 'w2'].map((w) => `<delegate to="${w}">go</delegate>`).join('') };
      if (c.agent === 'manager') return { content: '<answer>m</answer>' };
      return solve(c, `report of ${c.agent} (${/Round (\d)/.exec(userText(c))?.[1] ?? '?'})`);
    });
    const team = await runTeam(testTask(client), opts({ topology: 'centralized', agents: 2, rounds: 2 }));
    const delegations = calls.filter(delegation);
    expect(delegations).toHaveLength(2);
    expect(userText(delegations[0]!)).not.toContain('report of');
    expect(userText(delegations[1]!)).toContain('report of w1');
    expect(team.runs.map((r) => `${r.agent}:${r.phase}@${r.round}`)).toEqual([
      'manager:delegate@1',
      'w1:solve@1',
      'w2:solve@1',
      'manager:delegate@2',
      'w1:solve@2',
      'w2:solve@2',
      'manager:synthesize@2',
    ]);
  });

  it('a manager that cannot delegate fails the team; a failed worker just sends no report', async () => {
    const { client: noManager } = scriptedClient((c) => (c.agent === 'manager' ? 'fail' : { content: 'r' }));
    const t1 = await runTeam(testTask(noManager), opts({ topology: 'centralized' }));
    expect(t1.final).toBeNull();
    expect(t1.error).toMatch(/manager failed while delegating/);

    const { client, calls } = scriptedClient((c) =>
      c.agent === 'w2' ? 'fail' : delegation(c) ? { content: '' } : { content: `<answer>ok</answer> from ${c.agent}` },
    );
    const t2 = await runTeam(testTask(client), opts({ topology: 'centralized' }));
    expect(t2.error).toBeNull();
    const synth = userText(calls.at(-1)!);
    expect(synth).toContain('=== w1 ===');
    expect(synth).not.toContain('=== w2 ===');
  });
});

describe('sequential', () => {
  it('each stage sees the reports of the stages before it, and the last one answers', async () => {
    const { client, calls } = scriptedClient((c) =>
      solve(c, c.agent === 'verifier' ? 'checked\n<answer>42</answer>' : `report of ${c.agent}`),
    );
    const team = await runTeam(testTask(client), opts({ topology: 'sequential' }));
    expect(team.runs.map((r) => r.agent)).toEqual(['planner', 'caller', 'checker', 'verifier']);
    const order = ['planner', 'caller', 'checker', 'verifier'];
    order.forEach((stage, k) => {
      const u = userText(calls.find((c) => c.agent === stage)!);
      for (const earlier of order.slice(0, k)) expect(u).toContain(`report of ${earlier}`);
      for (const later of order.slice(k)) expect(u).not.toContain(`report of ${later}`);
      expect(systemText(calls.find((c) => c.agent === stage)!).includes('[ANSWERS]')).toBe(stage === 'verifier');
    });
    expect(userText(calls[0]!)).toContain('You are the first stage');
    expect(team.runs[team.final!]).toMatchObject({ agent: 'verifier', answer: '42' });
    expect(team.handoffs.map((h) => [h.from, h.to])).toEqual([
      ['planner', ['caller', 'checker', 'verifier']],
      ['caller', ['checker', 'verifier']],
      ['checker', ['verifier']],
    ]);
    // Stages run one after another: each starts after the previous one's last call.
    const firstCall = (a: string) => calls.findIndex((c) => c.agent === a);
    const lastCall = (a: string) => calls.findLastIndex((c) => c.agent === a);
    for (let k = 1; k < order.length; k++) expect(firstCall(order[k]!)).toBeGreaterThan(lastCall(order[k - 1]!));
  });

  it('the size picks stages by priority and keeps pipeline order; a failed last stage fails the team', async () => {
    expect(opts({ topology: 'sequential', agents: 2 }).roles).toEqual(['planner', 'verifier']);
    expect(opts({ topology: 'sequential', agents: 3 }).roles).toEqual(['planner', 'caller', 'verifier']);
    const { client } = scriptedClient((c) => (c.agent === 'verifier' ? 'fail' : { content: 'r' }));
    const team = await runTeam(testTask(client), opts({ topology: 'sequential' }));
    expect(team.final).toBeNull();
    expect(team.error).toMatch(/last stage \(verifier\) failed/);
  });
});

describe('communication formats in hand-offs', () => {
  const report = {
    status: 'completed',
    summary: 'found it',
    evidence: 'lookup returned v',
    confidence: 'high',
    next: 'use v',
  } as const;

  it('asks every role for the format, records each report’s parse, and passes parsed reports on canonically', async () => {
    const { client, calls } = scriptedClient((c) => {
      if (c.agent === 'planner') return { content: `Some notes first.\n${renderReport(report, 'semi_structured')}` };
      if (c.agent === 'caller') return { content: '[STATUS]\nsort of\n[SUMMARY]\nx' };
      return { content: '<answer>v</answer>' };
    });
    const team = await runTeam(
      testTask(client, { comm: 'semi_structured' }),
      opts({ topology: 'sequential', agents: 3 }),
    );
    expect(calls.every((c) => systemText(c).includes('INTER-AGENT REPORT FORMAT: semi_structured'))).toBe(true);
    expect(team.handoffs.map((h) => [h.from, h.ok])).toEqual([
      ['planner', true],
      ['caller', false],
    ]);
    expect(team.handoffs[1]!.errors).toEqual(expect.arrayContaining(['missing [EVIDENCE]', "invalid status 'sort'"]));
    expect(team.parse).toMatchObject({ reports: 2, parsed: 1, rate: 0.5 });
    const verifier = userText(calls.find((c) => c.agent === 'verifier')!);
    expect(verifier).not.toContain('Some notes first.'); // the parsed report, re-rendered
    expect(verifier).toContain(renderReport(report, 'semi_structured'));
    expect(verifier).toContain('[STATUS]\nsort of'); // the unparsed one, as written
  });

  it('freeform adds nothing to the prompts', async () => {
    const { client, calls } = scriptedClient(() => ({ content: '<answer>v</answer>' }));
    await runTeam(testTask(client), opts({ topology: 'independent', agents: 2 }));
    expect(calls.some((c) => systemText(c).includes('INTER-AGENT'))).toBe(false);
  });
});

describe('resolveTeamOptions', () => {
  it('applies per-topology defaults and ignores rounds where a topology has none', () => {
    expect(opts({ topology: 'independent' })).toMatchObject({
      agents: 5,
      rounds: 1,
      roles: ['solver'],
      comm: 'freeform',
      contextBudget: 5000,
      reportClip: 1200,
    });
    expect(opts({ topology: 'decentralized' })).toMatchObject({ agents: 3, rounds: 2, roles: ['debater'] });
    expect(opts({ topology: 'centralized' })).toMatchObject({
      agents: 3,
      rounds: 1,
      roles: ['w1', 'w2', 'w3'],
      lead: 'manager',
    });
    expect(opts({ topology: 'sequential' })).toMatchObject({
      agents: 4,
      roles: ['planner', 'caller', 'checker', 'verifier'],
    });
    expect(opts({ topology: 'independent', rounds: 3 }).rounds).toBe(1);
    expect(opts({ topology: 'decentralized', rounds: 3 }).rounds).toBe(3);
  });

  it('refuses sizes the roster cannot fill and bad values, naming the option', () => {
    expect(() => opts({ topology: 'centralized', agents: 4 })).toThrow(/agents: at most 3 centralized workers/);
    expect(() => opts({ topology: 'independent', agents: 0 })).toThrow(/team options: agents/);
    expect(() => opts({ topology: 'independent', comm: 'xml' as never })).toThrow(/team options: comm/);
  });
});
