import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat.ts';
import { hasAbortPhrase, judge, type MazeVerdict } from './judge.ts';
import { mazePolicy } from './policies.ts';
import { mazeMessages } from './prompt.ts';
import { runLocal } from './run-local.ts';
import { MODES, loadMazeTasks, type MazeTask, type Mode } from './task.ts';

const tasks = loadMazeTasks();

type Row = {
  task: MazeTask;
  mode: Mode;
  compat: MazeVerdict;
  strict: MazeVerdict;
  final: string | null;
  calls: number;
};
function sweep(policy: 'oracle' | 'naive'): Row[] {
  const rows: Row[] = [];
  for (const task of tasks) {
    for (const mode of MODES) {
      const r = runLocal(task, mode, policy);
      expect(r.stopped, `${policy} ${task.id} ${mode}`).toBe('answer');
      rows.push({
        task,
        mode,
        compat: judge(task, mode, r.trace, r.finalAnswer, { mode: 'compat' }),
        strict: judge(task, mode, r.trace, r.finalAnswer, { mode: 'strict' }),
        final: r.finalAnswer,
        calls: r.trace.length,
      });
    }
  }
  return rows;
}
const failures = (rows: Row[], pred: (r: Row) => boolean) =>
  rows
    .filter((r) => !pred(r))
    .map((r) => `${r.task.id} ${r.mode}: ${r.compat.failure_reason ?? r.strict.failure_reason}`);

describe('sim oracle policy (in memory, every task × every mode)', () => {
  const rows = sweep('oracle');

  it('passes every task on P0, in compat and strict mode', () => {
    expect(
      failures(
        rows.filter((r) => r.mode === 'P0'),
        (r) => r.compat.pass && r.strict.pass,
      ),
    ).toEqual([]);
  });

  it('passes every P1/P3 run by retrying (one perturbed result, then the real one)', () => {
    const t = rows.filter((r) => r.mode === 'P1' || r.mode === 'P3');
    expect(failures(t, (r) => r.compat.pass && r.strict.pass && r.compat.hit)).toEqual([]);
    expect(new Set(t.map((r) => r.compat.recovery))).toEqual(new Set(['retry']));
    expect(t.every((r) => r.compat.rc === 0)).toBe(true);
  });

  it('passes every P2/P4 run on C2–C4 by switching to an alternative', () => {
    const t = rows.filter((r) => (r.mode === 'P2' || r.mode === 'P4') && r.task.complexity !== 'c1');
    expect(failures(t, (r) => r.compat.pass && r.strict.pass)).toEqual([]);
    expect(new Set(t.map((r) => r.compat.recovery))).toEqual(new Set(['switch']));
  });

  it('aborts correctly on C1 P2/P4: only a retry of the victim, then an abort phrase', () => {
    const t = rows.filter((r) => (r.mode === 'P2' || r.mode === 'P4') && r.task.complexity === 'c1');
    expect(t).toHaveLength(2 * tasks.filter((x) => x.complexity === 'c1').length);
    expect(failures(t, (r) => r.compat.pass && r.strict.pass && r.compat.recovery === 'abort')).toEqual([]);
    expect(t.every((r) => hasAbortPhrase(r.final) && r.compat.c_oracle === 1)).toBe(true);
  });

  it('never trips a perturbation in P0 and answers the expected value', () => {
    expect(rows.filter((r) => r.mode === 'P0').every((r) => !r.compat.hit && r.final?.includes('<answer>'))).toBe(true);
  });

  it('decides from visible results only: hiding the task’s victims from the policy changes nothing', () => {
    for (const task of tasks.filter((_, i) => i % 4 === 0)) {
      const blind: MazeTask = { ...task, victims: [] };
      for (const mode of ['P3', 'P4'] as Mode[]) {
        const seen = runLocal(task, mode, 'oracle');
        const hidden = runLocal(task, mode, (m) => mazePolicy('oracle', blind, m));
        expect(hidden.trace, `${task.id} ${mode}`).toEqual(seen.trace);
        expect(hidden.finalAnswer).toBe(seen.finalAnswer);
      }
    }
  });
});

describe('sim naive policy', () => {
  const rows = sweep('naive');

  it('passes P0 (compat) and fails every P1–P4 run that hits a perturbation', () => {
    expect(
      failures(
        rows.filter((r) => r.mode === 'P0'),
        (r) => r.compat.pass,
      ),
    ).toEqual([]);
    const perturbed = rows.filter((r) => r.mode !== 'P0');
    expect(perturbed.every((r) => r.compat.hit)).toBe(true);
    expect(perturbed.filter((r) => r.compat.pass || r.strict.pass).map((r) => `${r.task.id} ${r.mode}`)).toEqual([]);
    expect(perturbed.every((r) => r.compat.rc === 1 && r.compat.recovery === 'unrecovered')).toBe(true);
  });

  it('never retries and never switches: one call per node of the first path', () => {
    for (const r of rows) expect(r.calls, `${r.task.id} ${r.mode}`).toBe(r.task.paths[0]!.nodes.length);
  });
});

describe('mazePolicy is a pure function of (task, messages)', () => {
  it('returns the same message for the same conversation, with call ids call_<turn>_<i>', () => {
    const task = tasks.find((t) => t.complexity === 'c4')!;
    const msgs: ChatMessage[] = mazeMessages(task);
    const a = mazePolicy('oracle', task, msgs);
    expect(mazePolicy('oracle', task, msgs)).toEqual(a);
    expect(a.tool_calls?.[0]?.id).toBe('call_0_0');
    const r = runLocal(task, 'P2', 'oracle');
    expect(r.messages.filter((m) => m.role === 'assistant' && m.tool_calls).map((m) => m.tool_calls![0]!.id)).toEqual(
      r.trace.map((_, i) => `call_${i}_0`),
    );
  });
});
