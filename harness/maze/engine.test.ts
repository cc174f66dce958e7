import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { MazeSession, type MazeTraceEntry } from './engine.ts';
import { runLocal } from './run-local.ts';
import { loadMazeTasks, nodeIndex, slotSteps, taskToolNames, type MazeTask, type Mode } from './task.ts';
import { scriptedAgent, type Move } from './testing.ts';

const tasks = loadMazeTasks();
const byC = (c: string) => tasks.filter((t) => t.complexity === c);
const statusOf = (trace: MazeTraceEntry[], tool: string) => trace.filter((e) => e.name === tool).map((e) => e.status);
/** Fixed nodes before the first slot (some slots bind their arguments from them). */
const prefix = (t: MazeTask): Move[] => {
  const k = t.steps.findIndex((s) => s.kind === 'slot');
  return t.steps.slice(0, k).flatMap((s) => (s.kind === 'node' ? [{ call: s.node.id }] : []));
};
const perturbed = (m: Mode) => (m === 'P1' || m === 'P2' ? 'explicit_error' : 'implicit_corruption');

describe('MazeSession: agent-visible tools', () => {
  it('exposes exactly the tools on the task paths, sorted, as OpenAI functions', () => {
    for (const t of tasks) {
      const tools = new MazeSession(t, 'P2').tools();
      expect(tools.map((x) => x.function.name)).toEqual(taskToolNames(t));
      expect(tools.every((x) => x.type === 'function' && x.function.parameters)).toBe(true);
    }
  });
});

describe('MazeSession: victim selection by first touch', () => {
  it('C2: whichever alternative the agent calls first is the victim; the others stay clean', () => {
    for (const t of byC('c2')) {
      const slot = slotSteps(t)[0]!;
      for (const mode of ['P1', 'P2', 'P3', 'P4'] as Mode[]) {
        for (const first of slot.choices) {
          const others = slot.choices.filter((c) => c !== first);
          // Call the first pick twice, then each other alternative twice.
          const moves: Move[] = [
            ...prefix(t),
            ...[first, first, ...others.flatMap((c) => [c, c])].map((c) => ({ call: c.nodes[0]!.id })),
          ];
          const { trace } = runLocal(t, mode, scriptedAgent(t, moves));
          const transient = mode === 'P1' || mode === 'P3';
          expect(statusOf(trace, first.nodes[0]!.tool), `${t.id} ${mode} ${first.id}`).toEqual([
            perturbed(mode),
            transient ? 'clean' : perturbed(mode),
          ]);
          for (const o of others)
            expect(statusOf(trace, o.nodes[0]!.tool), `${t.id} ${mode} other ${o.id}`).toEqual(['clean', 'clean']);
          if (mode === 'P3' || mode === 'P4') {
            const v = t.victims.find((x) => x.tool === first.nodes[0]!.tool)!;
            const firstCall = trace.find((e) => e.name === v.tool)!;
            expect(firstCall.result).toEqual(v.implicit.payload);
            expect('error' in firstCall.result).toBe(false);
          }
        }
      }
    }
  });

  it('C4: each slot has its own first-touched victim, whatever the order of touches across slots', () => {
    const rng = new Rng(99);
    for (const t of byC('c4')) {
      const slots = slotSteps(t);
      for (let rep = 0; rep < 3; rep++) {
        // Random first pick per slot, random interleaving of the slots.
        const firsts = slots.map((s) => rng.pick(s.choices));
        const order = rng.shuffle(slots.map((_, i) => i));
        const moves: Move[] = prefix(t);
        for (const i of order) moves.push({ call: firsts[i]!.nodes[0]!.id });
        for (const i of order) for (const c of slots[i]!.choices) moves.push({ call: c.nodes[0]!.id });
        const { trace } = runLocal(t, 'P2', scriptedAgent(t, moves));
        slots.forEach((s, i) => {
          for (const c of s.choices) {
            const st = statusOf(trace, c.nodes[0]!.tool);
            if (c === firsts[i]) expect(st, `${t.id} ${s.id}`).toEqual(['explicit_error', 'explicit_error']);
            else expect(st, `${t.id} ${s.id} ${c.id}`).toEqual(['clean']);
          }
        });
      }
    }
  });

  it('C3: only a path entry tool activates the slot; a non-entry tool of another path is not a touch', () => {
    for (const t of byC('c3')) {
      const slot = slotSteps(t)[0]!;
      const multi = slot.choices.find((c) => c.nodes.length >= 2)!;
      const other = slot.choices.find((c) => c !== multi)!;
      // Second node of the multi-node choice first (no inputs → its own invalid-use error), then the other entry.
      const moves: Move[] = [{ call: multi.nodes[1]!.id }, { call: other.nodes[0]!.id }, { call: multi.nodes[0]!.id }];
      const { trace } = runLocal(t, 'P2', scriptedAgent(t, moves));
      expect(trace[0]!.status, t.id).toBe('tool_error');
      expect(trace[1]!.status, t.id).toBe('explicit_error');
      expect(trace[2]!.status, t.id).toBe('clean');
    }
  });

  it('C1: the fixed victim, first call by tool name in transient modes, every call in permanent modes', () => {
    for (const t of byC('c1')) {
      const v = t.victims[0]!;
      const moves: Move[] = [{ call: v.node }, { call: v.node }, { call: v.node }];
      const st = (m: Mode) => runLocal(t, m, scriptedAgent(t, moves)).trace.map((e) => e.status);
      // Without its inputs the victim may reject the call (tool_error); what matters is that P0 perturbs nothing.
      expect(
        st('P0').filter((s) => s === 'explicit_error' || s === 'implicit_corruption'),
        t.id,
      ).toEqual([]);
      expect(st('P1')).toEqual([
        'explicit_error',
        expect.stringMatching(/clean|tool_error/),
        expect.stringMatching(/clean|tool_error/),
      ]);
      expect(st('P2')).toEqual(['explicit_error', 'explicit_error', 'explicit_error']);
      expect(st('P3')[0]).toBe('implicit_corruption');
      expect(st('P3').slice(1)).not.toContain('implicit_corruption');
      expect(st('P4')).toEqual(['implicit_corruption', 'implicit_corruption', 'implicit_corruption']);
      const p1 = runLocal(t, 'P1', scriptedAgent(t, moves)).trace[0]!;
      expect(p1.result).toEqual({ error: v.explicit.P1 });
      expect(runLocal(t, 'P2', scriptedAgent(t, moves)).trace[0]!.result).toEqual({ error: v.explicit.P2 });
    }
  });
});

describe('MazeSession: calls that never reach a tool', () => {
  const t = byC('c2')[0]!;
  const slot = slotSteps(t)[0]!;
  const [a, b] = [slot.choices[0]!.nodes[0]!, slot.choices[1]!.nodes[0]!];

  it('malformed argument JSON and unknown tools become { error } results and do not count as touches', async () => {
    const s = new MazeSession(t, 'P1');
    const bad = await s.execute({ id: 'c1', name: b.tool, argumentsJson: '{"oops": ' });
    expect(JSON.parse(bad.content)).toHaveProperty('error');
    expect(bad.meta).toMatchObject({ perturbation_status: 'tool_error', error_kind: 'malformed_arguments' });
    const unknown = await s.execute({ id: 'c2', name: 'launch_rocket', argumentsJson: '{}' });
    expect(JSON.parse(unknown.content)).toEqual({ error: 'unknown tool "launch_rocket"' });
    expect(unknown.meta).toMatchObject({ error_kind: 'unknown_tool' });
    // A library tool that is not on this task's paths is unknown to the agent too.
    const offTask = await s.execute({ id: 'c3', name: 'send_sms', argumentsJson: '{}' });
    expect(offTask.meta).toMatchObject({ error_kind: 'unknown_tool' });
    // b was never reached, so a well-formed call to a activates a as the victim.
    const args = JSON.stringify(
      Object.fromEntries(Object.entries(a.args).map(([k, v]) => [k, 'literal' in v ? v.literal : 0])),
    );
    const first = await s.execute({ id: 'c4', name: a.tool, argumentsJson: args });
    expect(first.meta).toMatchObject({ perturbation_status: 'explicit_error', victim_group: slot.id });
    const second = await s.execute({ id: 'c5', name: b.tool, argumentsJson: args });
    expect(second.meta).toMatchObject({ perturbation_status: 'clean' });
    expect(s.activations().map((x) => x.victim.tool)).toEqual([a.tool]);
    expect(s.trace().map((e) => e.index)).toEqual([0, 1, 2, 3, 4]);
    expect(s.trace()[0]!.args).toBeNull();
  });

  it('parallel calls are executed one by one in the order given (the first listed is the first touch)', () => {
    const { trace } = runLocal(t, 'P2', scriptedAgent(t, [{ parallel: [b.id, a.id] }]));
    expect(trace.map((e) => [e.name, e.status, e.call_id])).toEqual([
      [b.tool, 'explicit_error', 'call_0_0'],
      [a.tool, 'clean', 'call_0_1'],
    ]);
  });

  it('sessions do not share state', () => {
    const s1 = runLocal(t, 'P2', scriptedAgent(t, [{ call: b.id }])).trace;
    const s2 = runLocal(t, 'P2', scriptedAgent(t, [{ call: a.id }])).trace;
    expect(s1[0]!.status).toBe('explicit_error');
    expect(s2[0]!.status).toBe('explicit_error');
  });
});

describe('MazeSession: a perturbed call changes no state', () => {
  it('an errored transfer leaves the balance; the retried one moves the money once', () => {
    const base = tasks.find((x) => x.template === 'c1_transfer_share')!;
    const t: MazeTask = structuredClone(base);
    const idx = nodeIndex(t);
    const move = idx.get('move')!.node;
    t.victims = [{ ...t.victims[0]!, node: 'move', tool: move.tool }];
    const bal = idx.get('bal')!.node;
    const moves: Move[] = [
      { call: 'bal' },
      { call: 'share' },
      { call: 'move' },
      { call: 'move' },
      { call: 'bal', args: {} },
    ];
    const { trace } = runLocal(t, 'P1', scriptedAgent(t, moves));
    expect(trace.map((e) => e.status)).toEqual(['clean', 'clean', 'explicit_error', 'clean', 'clean']);
    const before = trace[0]!.result.balance as number;
    const amount = trace[1]!.result.result as number;
    expect(trace[3]!.result.new_balance).toBeCloseTo(before - amount, 2);
    expect(trace[4]!.name).toBe(bal.tool);
    expect(trace[4]!.result.balance).toBeCloseTo(before - amount, 2);
    expect(trace[3]!.result.new_balance).toBeCloseTo(Number(t.answer.value), 2);
  });
});
