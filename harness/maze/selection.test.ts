import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectRuns } from './selection.ts';
import { loadMazeTasks, MODES } from './task.ts';

const tasks = loadMazeTasks(undefined, ['c1', 'c2']).slice(0, 6);
const key = (r: { task: { id: string }; mode: string }) => `${r.task.id}_${r.mode}`;

describe('selectRuns', () => {
  it('selects exactly the named runs (task plus mode), in any order and with repeats', () => {
    const all = tasks.flatMap((t) => MODES.map((m) => `${t.id}_${m}`));
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...all), { minLength: 1, maxLength: 12 }),
        fc.subarray([...MODES]),
        (ids, modes) => {
          const s = selectRuns(tasks, modes, ids);
          expect(s.unknown).toEqual([]);
          expect(s.runs.map(key).sort()).toEqual([...new Set(ids)].sort());
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a task id takes every selected mode; no ids takes every task × mode; unknown ids are listed in order', () => {
    const [a, b] = tasks;
    expect(selectRuns(tasks, ['P1', 'P3'], [a!.id]).runs.map(key)).toEqual([`${a!.id}_P1`, `${a!.id}_P3`]);
    expect(selectRuns(tasks, ['P0', 'P4'], undefined).runs).toHaveLength(tasks.length * 2);
    const s = selectRuns(tasks, ['P0'], ['zzz', `${b!.id}_P7`, a!.id, `${a!.id}P1`]);
    expect(s.unknown).toEqual(['zzz', `${b!.id}_P7`, `${a!.id}P1`]);
    expect(s.runs.map(key)).toEqual([`${a!.id}_P0`]);
  });
});
