import { describe, expect, it } from 'vitest';
import type { MazeTraceEntry } from './engine.ts';
import {
  answerMatches,
  answerText,
  cOracle,
  hasAbortPhrase,
  judge,
  numbersIn,
  replayActivations,
  runRc,
  type JudgeMode,
} from './judge.ts';
import { runLocal } from './run-local.ts';
import { loadMazeTasks, slotSteps, type MazeTask, type Mode } from './task.ts';
import { scriptedAgent, walkPath, type Move } from './testing.ts';

const tasks = loadMazeTasks();
const byC = (c: string) => tasks.filter((t) => t.complexity === c);
const c1Last = byC('c1').find((t) => t.paths[0]!.nodes.at(-1) === t.victims[0]!.node && t.paths[0]!.nodes.length >= 3)!;
const c1Mid = byC('c1').find(
  (t) => t.paths[0]!.nodes.indexOf(t.victims[0]!.node) === 0 && t.paths[0]!.nodes.length >= 3,
)!;
const c2 = byC('c2').find((t) => t.template === 'c2_transfer_share')!;
const c4 = byC('c4').find((t) => t.template === 'c4_trip_cost')!;

function run(task: MazeTask, mode: Mode, moves: Move[], judgeMode: JudgeMode = 'compat') {
  const r = runLocal(task, mode, scriptedAgent(task, moves));
  return { ...r, v: judge(task, mode, r.trace, r.finalAnswer, { mode: judgeMode }) };
}
/** Moves that call every node of the chain, retrying `victim` right after its first call. */
function chainWithRetry(task: MazeTask, victim: string, pathId = 'p0'): Move[] {
  const p = task.paths.find((x) => x.id === pathId)!;
  return [
    ...p.nodes.flatMap((n): Move[] =>
      n === victim
        ? [
            { call: n, path: pathId },
            { call: n, path: pathId },
          ]
        : [{ call: n, path: pathId }],
    ),
    { answer: 'value', path: pathId },
  ];
}
const slotChoiceNodes = (t: MazeTask, slot = 0) => slotSteps(t)[slot]!.choices.map((c) => c.nodes[0]!.id);

describe('judge: P0', () => {
  it('passes a completed valid path; no hit, recovery none, RC 0', () => {
    const { v } = run(c2, 'P0', walkPath(c2, 'p1'));
    expect(v).toMatchObject({ pass: true, failure_reason: null, hit: false, recovery: 'none', c_act: 0, rc: 0 });
    expect(v.trace_check.completed_paths).toEqual(['p1']);
  });
  it('fails when a node of every path never succeeded', () => {
    const moves = walkPath(c2, 'p0').filter((m) => !('call' in m) || m.call !== 'move');
    const { v } = run(c2, 'P0', moves);
    expect(v).toMatchObject({ pass: false, failure_reason: 'no_valid_path_completed', hit: false, rc: 0 });
  });
  it('tool errors of the agent’s own making are not hits', () => {
    const { v, trace } = run(c2, 'P0', [{ call: 'move', args: { amount: -5 } }, ...walkPath(c2, 'p0')]);
    expect(trace[0]!.status).toBe('tool_error');
    expect(v).toMatchObject({ pass: true, hit: false });
  });
});

describe('judge: transient modes (P1/P3)', () => {
  it('retry: ≥ 2 calls to the victim, ≥ 1 clean, and a complete path → pass, recovery retry, RC 0 for the cheapest suffix', () => {
    for (const mode of ['P1', 'P3'] as Mode[]) {
      const { v } = run(c1Mid, mode, chainWithRetry(c1Mid, c1Mid.victims[0]!.node));
      expect(v, mode).toMatchObject({ pass: true, recovery: 'retry', hit: true });
      const n = c1Mid.paths[0]!.nodes.length;
      expect(v.c_oracle).toBe(2 + (n - 1)); // hit + retry + the rest of the chain
      expect(v.c_act).toBe(v.c_oracle);
      expect(v.rc).toBe(0);
    }
  });

  it('switch: an alternative that was not perturbed completes the task → pass, recovery switch', () => {
    const [a, b] = slotChoiceNodes(c2);
    const moves: Move[] = [
      { call: a! },
      { call: b!, path: 'p1' },
      { call: 'share', path: 'p1' },
      { call: 'move', path: 'p1' },
      { answer: 'value', path: 'p1' },
    ];
    const { v } = run(c2, 'P1', moves);
    expect(v).toMatchObject({ pass: true, recovery: 'switch', hit: true });
  });

  it('no retry and no switch → fail no_retry_or_switch, RC 1', () => {
    const { v } = run(c1Mid, 'P1', walkPath(c1Mid, 'p0'));
    expect(v).toMatchObject({ pass: false, failure_reason: 'no_retry_or_switch', recovery: 'unrecovered', rc: 1 });
  });

  it('edge: a retry with 2 calls but none clean is not a recovery', () => {
    const victim = c1Mid.victims[0]!.node;
    const p = c1Mid.paths[0]!.nodes;
    const moves: Move[] = [
      { call: victim },
      { call: victim, args: { not_a_parameter: 1 } },
      ...p.filter((n) => n !== victim).map((n): Move => ({ call: n })),
      { answer: 'value' },
    ];
    const { v, trace } = run(c1Mid, 'P1', moves);
    expect(trace.filter((e) => e.name === c1Mid.victims[0]!.tool).map((e) => e.status)).toEqual([
      'explicit_error',
      'tool_error',
    ]);
    expect(v).toMatchObject({ pass: false, failure_reason: 'no_retry_or_switch' });
    expect(v.trace_check.rules.find((r) => r.rule === 'recovered:main')).toMatchObject({ ok: false });
  });

  it('edge: "switching" to an alternative whose own result was perturbed does not count', () => {
    // Hand-made trace: both alternatives come back perturbed (as from a faulty executor); the judge must only
    // credit results whose status is clean.
    const [a, b] = slotSteps(c2)[0]!.choices.map((c) => c.nodes[0]!.tool);
    const ok = runLocal(c2, 'P0', scriptedAgent(c2, walkPath(c2, 'p1'))).trace;
    const trace: MazeTraceEntry[] = [
      { ...ok[0]!, index: 0, name: a!, status: 'explicit_error', result: { error: 'x' } },
      { ...ok[0]!, index: 1, name: b!, status: 'explicit_error', result: { error: 'y' } },
      ...ok.slice(1).map((e, i) => ({ ...e, index: i + 2 })),
    ];
    const v = judge(c2, 'P1', trace, '<answer>1</answer>', { mode: 'compat' });
    expect(v).toMatchObject({ pass: false, failure_reason: 'no_retry_or_switch', hit: true });
  });
});

describe('judge: permanent modes (P2/P4), C2–C4', () => {
  it('a complete path that avoids the victim → pass, recovery switch; C_oracle = hit + shortest alternative + rest', () => {
    const [a, b] = slotChoiceNodes(c2);
    const moves: Move[] = [
      { call: a! },
      { call: a! },
      { call: b!, path: 'p1' },
      { call: 'share', path: 'p1' },
      { call: 'move', path: 'p1' },
      { answer: 'value', path: 'p1' },
    ];
    for (const mode of ['P2', 'P4'] as Mode[]) {
      const { v } = run(c2, mode, moves);
      expect(v, mode).toMatchObject({ pass: true, recovery: 'switch', c_act: 5, c_oracle: 4 });
      expect(v.rc).toBeCloseTo(1 - 4 / 5, 12);
    }
  });

  it('retrying the victim forever never passes', () => {
    const [a] = slotChoiceNodes(c2);
    const { v } = run(c2, 'P2', [
      { call: a! },
      { call: a! },
      { call: a! },
      { call: 'share' },
      { call: 'move' },
      { answer: 'value' },
    ]);
    expect(v).toMatchObject({ pass: false, failure_reason: 'no_valid_path_completed', recovery: 'unrecovered', rc: 1 });
  });

  it('edge: C4 — switching in one slot but keeping the other slot’s (perturbed) victim fails', () => {
    const [f1, f2] = slotChoiceNodes(c4, 0);
    const [h1] = slotChoiceNodes(c4, 1);
    const moves: Move[] = [
      { call: f1! },
      { call: f2! },
      { call: h1! },
      { call: h1! },
      { call: 'trip' },
      { answer: 'value' },
    ];
    const { v, trace } = run(c4, 'P2', moves);
    expect(trace.map((e) => e.status)).toEqual([
      'explicit_error',
      'clean',
      'explicit_error',
      'explicit_error',
      'tool_error',
    ]);
    expect(v).toMatchObject({ pass: false, failure_reason: 'no_valid_path_completed' });
    expect(v.trace_check.activated_victims.map((x) => x.group)).toEqual(['flight', 'hotel']);
  });

  it('C4: switching in every slot passes; C_oracle counts one hit + switch per slot', () => {
    const [f1, f2] = slotChoiceNodes(c4, 0);
    const [h1, h2] = slotChoiceNodes(c4, 1);
    const moves: Move[] = [
      { call: f1! },
      { call: f2! },
      { call: h1! },
      { call: h2! },
      { call: 'trip', path: 'p3' },
      { answer: 'value', path: 'p3' },
    ];
    const { v } = run(c4, 'P2', moves);
    expect(v).toMatchObject({ pass: true, recovery: 'switch', c_act: 5, c_oracle: 5, rc: 0 });
  });
});

describe('judge: C1 permanent (abort)', () => {
  const abortAfterVictim = (t: MazeTask, text: string): Move[] => {
    const p = t.paths[0]!.nodes;
    const k = p.indexOf(t.victims[0]!.node);
    return [...p.slice(0, k + 1).map((n): Move => ({ call: n })), { call: p[k]! }, { answer: text }];
  };

  it('only victim retries after its first call + abort phrase → pass, recovery abort, C_oracle 1', () => {
    for (const mode of ['P2', 'P4'] as Mode[]) {
      const { v } = run(
        c1Last,
        mode,
        abortAfterVictim(c1Last, 'The service keeps failing, so I am unable to complete this. Task aborted.'),
      );
      expect(v, mode).toMatchObject({ pass: true, recovery: 'abort', c_oracle: 1, c_act: 2 });
      expect(v.rc).toBeCloseTo(0.5, 12);
    }
  });

  it('edge: victim is the last node and the answer has no abort phrase → fail missing_abort_phrase', () => {
    const { v } = run(c1Last, 'P2', abortAfterVictim(c1Last, 'Sorry, something went wrong.'));
    expect(v).toMatchObject({ pass: false, failure_reason: 'missing_abort_phrase', rc: 1 });
  });

  it('victim not last: both judge modes require the abort phrase', () => {
    const moves = abortAfterVictim(c1Mid, 'Sorry, something went wrong.');
    for (const jm of ['compat', 'strict'] as JudgeMode[])
      expect(run(c1Mid, 'P2', moves, jm).v, jm).toMatchObject({ pass: false, failure_reason: 'missing_abort_phrase' });
    expect(run(c1Mid, 'P2', abortAfterVictim(c1Mid, 'I am unable to complete this task.')).v).toMatchObject({
      pass: true,
      recovery: 'abort',
    });
  });

  it('edge: an answer after stopping at a permanent failure never passes, wherever the victim sits (compat included)', () => {
    // The run stops calling tools at the victim (as an abort would) but then answers a made-up value.
    const passed: string[] = [];
    for (const t of byC('c1')) {
      for (const mode of ['P2', 'P4'] as Mode[]) {
        const { trace } = runLocal(t, mode, scriptedAgent(t, abortAfterVictim(t, 'foo')));
        expect(
          trace.some((e) => e.status !== 'clean'),
          `${t.id} ${mode}: the victim was hit`,
        ).toBe(true);
        for (const jm of ['compat', 'strict'] as JudgeMode[])
          if (judge(t, mode, trace, 'foo', { mode: jm }).pass) passed.push(`${t.id}:${mode}:${jm}`);
      }
    }
    expect(passed).toEqual([]);
  });

  it('calling another tool after the first victim call → fail continued_after_permanent_failure', () => {
    const { v } = run(c1Mid, 'P2', [...walkPath(c1Mid, 'p0').slice(0, -1), { answer: 'Task aborted.' }]);
    expect(v).toMatchObject({ pass: false, failure_reason: 'continued_after_permanent_failure' });
  });

  it('never reaching the victim is not a pass', () => {
    const { v } = run(c1Mid, 'P2', [{ answer: 'Task aborted.' }]);
    expect(v).toMatchObject({ pass: false, failure_reason: 'victim_not_reached', hit: false, rc: 0 });
  });
});

describe('judge: strict mode', () => {
  it('edge: catches a corrupted value passed downstream (compat passes the same run)', () => {
    let caught = 0;
    for (const t of byC('c2')) {
      const [a] = slotChoiceNodes(t);
      const k = t.steps.findIndex((s) => s.kind === 'slot');
      const pre = t.steps.slice(0, k).flatMap((s): Move[] => (s.kind === 'node' ? [{ call: s.node.id }] : []));
      const post = t.steps
        .slice(k + 1)
        .flatMap((s): Move[] => (s.kind === 'node' ? [{ call: s.node.id, bind: 'first' }] : []));
      // Retry the victim (so compat sees a recovery) but bind downstream arguments from the first, corrupted result.
      const moves: Move[] = [...pre, { call: a! }, { call: a! }, ...post, { answer: 'value' }];
      const r = runLocal(t, 'P3', scriptedAgent(t, moves));
      const compat = judge(t, 'P3', r.trace, r.finalAnswer, { mode: 'compat' });
      if (!compat.pass || post.length === 0) continue;
      const strict = judge(t, 'P3', r.trace, r.finalAnswer, { mode: 'strict' });
      const leaked = r.trace.some(
        (e, i) =>
          i > 1 &&
          e.args &&
          JSON.stringify(e.args) !==
            JSON.stringify(
              runLocal(t, 'P0', scriptedAgent(t, walkPath(t, 'p0'))).trace.find((x) => x.name === e.name)?.args,
            ),
      );
      if (!leaked) continue;
      expect(strict, t.id).toMatchObject({ pass: false, failure_reason: 'corrupted_value_propagated' });
      expect(strict.trace_check.rules.find((x) => x.rule === 'strict:no_corrupted_value_downstream')!.detail).toMatch(
        /passed to/,
      );
      caught++;
    }
    expect(caught).toBeGreaterThan(5);
  });

  it('binding mismatch: a literal argument changed by the agent', () => {
    const t = byC('c2').find((x) => x.template === 'c2_position_value')!;
    const moves: Move[] = [
      { call: slotChoiceNodes(t)[0]! },
      { call: 'value', args: { shares: 1 } },
      { answer: 'value' },
    ];
    expect(run(t, 'P0', moves).v.pass).toBe(true);
    const s = run(t, 'P0', moves, 'strict').v;
    expect(s).toMatchObject({ pass: false, failure_reason: 'binding_mismatch' });
  });

  it('wrong final value', () => {
    const moves = walkPath(c2, 'p0', { answer: 'The balance is <answer>12</answer>' });
    expect(run(c2, 'P0', moves).v.pass).toBe(true);
    expect(run(c2, 'P0', moves, 'strict').v).toMatchObject({ pass: false, failure_reason: 'wrong_answer' });
    expect(run(c2, 'P0', walkPath(c2, 'p0'), 'strict').v).toMatchObject({ pass: true });
  });
});

describe('judge: helpers and purity', () => {
  it('answer matching: <answer> tag, thousands separators, tolerance, case-insensitive text', () => {
    expect(answerText('blah <answer>1,234.50</answer> tail')).toBe('1,234.50');
    expect(numbersIn('a 1,234.5 and -3 and .5')).toEqual([1234.5, -3, 0.5]);
    expect(
      answerMatches(
        { ref: 'x', field: 'y', value: 1234.5, match: 'number', tolerance: 0.01 },
        'It is <answer>1,234.51</answer>',
      ),
    ).toBe(true);
    expect(
      answerMatches({ ref: 'x', field: 'y', value: 1234.5, match: 'number', tolerance: 0.01 }, 'It is 1,234.52'),
    ).toBe(false);
    expect(
      answerMatches({ ref: 'x', field: 'y', value: 'Ada@Example.org', match: 'text' }, 'sent to ada@example.org'),
    ).toBe(true);
    expect(hasAbortPhrase('I can’t complete this')).toBe(true);
    expect(hasAbortPhrase('TASK ABORTED')).toBe(true);
    expect(hasAbortPhrase('Here is the answer')).toBe(false);
  });

  it('runRc follows docs/maze.md: 0 without a hit, 1 on hit ∧ fail, else 1 − C_oracle / max(C_act, C_oracle)', () => {
    expect(runRc(false, true, 0, 0)).toBe(0);
    expect(runRc(true, false, 3, 2)).toBe(1);
    expect(runRc(true, true, 4, 2)).toBe(0.5);
    expect(runRc(true, true, 1, 2)).toBe(0);
  });

  it('C_oracle from the graph: C3 transient = hit + the victim choice’s sub-chain + rest; permanent = hit + shortest other choice + rest', () => {
    const t = byC('c3').find((x) => x.template === 'c3_holding_fx')!;
    const slot = slotSteps(t)[0]!;
    const long = slot.choices.find((c) => c.nodes.length === 2)!;
    const act = replayActivations(t, [
      {
        index: 0,
        call_id: 'a',
        name: long.nodes[0]!.tool,
        arguments_json: '{}',
        args: {},
        result: {},
        status: 'explicit_error',
      },
    ]);
    expect(cOracle(t, 'P1', act, slot.id)).toBe(1 + 2); // slot is the last step
    expect(cOracle(t, 'P2', act, slot.id)).toBe(1 + 1); // the one-tool converter is the shortest alternative
    expect(cOracle(t, 'P0', act, slot.id)).toBe(0);
  });

  it('is pure: same inputs, same verdict, inputs untouched', () => {
    const r = runLocal(c4, 'P4', 'oracle');
    const frozen = structuredClone(r.trace);
    const a = judge(c4, 'P4', r.trace, r.finalAnswer, { mode: 'strict' });
    const b = judge(c4, 'P4', r.trace, r.finalAnswer, { mode: 'strict' });
    expect(a).toEqual(b);
    expect(r.trace).toEqual(frozen);
  });
});
