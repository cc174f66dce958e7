import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataError } from '../core/errors.ts';
import { buildTaskFile, renderTaskFile, generateTasks } from './generate.ts';
import { lintTask, lintTasks } from './lint.ts';
import {
  COMPLEXITIES,
  DEFAULT_CASES_DIR,
  enumeratePaths,
  loadMazeTasks,
  loadTaskFile,
  runCleanPath,
  taskFilePath,
  type MazeTask,
} from './task.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

const tasks = loadMazeTasks();
const byC = (c: string) => tasks.filter((t) => t.complexity === c);
const clone = (t: MazeTask): MazeTask => structuredClone(t);
const rules = (t: MazeTask) => lintTask(t).map((i) => i.rule);

describe('maze task files', () => {
  it('hold at least 40 tasks per complexity, with unique ids', () => {
    for (const c of COMPLEXITIES) expect(byC(c).length).toBeGreaterThanOrEqual(40);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
  });

  it('every task passes the linter', () => {
    expect(lintTasks(tasks)).toEqual([]);
  });

  it('are exactly what the generator writes for the seed recorded in them (generate.ts --seed N is deterministic)', () => {
    for (const c of COMPLEXITIES) {
      const onDisk = readFileSync(taskFilePath(DEFAULT_CASES_DIR, c), 'utf8');
      const seed = loadTaskFile(taskFilePath(DEFAULT_CASES_DIR, c)).seed;
      expect(renderTaskFile(buildTaskFile(seed, c))).toBe(onDisk);
    }
  });

  it('a different seed gives different, still lint-clean tasks', () => {
    const other = generateTasks(12345, 'c3', 12);
    expect(other.map((t) => t.query)).not.toEqual(
      byC('c3')
        .slice(0, 12)
        .map((t) => t.query),
    );
    expect(lintTasks(other)).toEqual([]);
  });

  it('have the path structure of their complexity', () => {
    for (const t of byC('c1')) expect(t.paths).toHaveLength(1);
    for (const t of byC('c2')) {
      const slots = t.steps.filter((s) => s.kind === 'slot');
      expect(slots).toHaveLength(1);
      expect(t.paths.length).toBeGreaterThanOrEqual(2);
    }
    for (const t of byC('c4')) {
      expect(t.steps.filter((s) => s.kind === 'slot').length).toBeGreaterThanOrEqual(2);
      for (const p of t.paths) expect(p.group_choices.every((g) => /^[a-z_]+:[a-z_]+$/.test(g))).toBe(true);
    }
    // C1 victims: some on the last node (abort phrase required), some earlier.
    const last = byC('c1').filter((t) => t.paths[0]!.nodes.at(-1) === t.victims[0]!.node).length;
    expect(last).toBeGreaterThan(5);
    expect(byC('c1').length - last).toBeGreaterThan(5);
  });

  it('a malformed task file names the file, the task and the field', () => {
    const t = clone(tasks[0]!) as unknown as Record<string, unknown>;
    delete t.query;
    const path = join(tempDir('maze-lint'), 'c1.json');
    writeFileSync(path, JSON.stringify({ version: 1, complexity: 'c1', seed: 1, generated_by: 'x', tasks: [t] }));
    expect(() => loadTaskFile(path)).toThrow(DataError);
    expect(() => loadTaskFile(path)).toThrow(/C1_task_001.*query/);
  });
});

describe('maze linter catches broken tasks', () => {
  const c1 = byC('c1')[0]!;
  const c2 = byC('c2')[0]!;
  const c3 = byC('c3')[0]!;

  it('a P2 message that invites a retry', () => {
    const t = clone(c1);
    t.victims[0]!.explicit.P2 = 'Service busy, please try again later';
    expect(rules(t)).toContain('explicit');
  });

  it('an implicit payload its detector does not flag, or with an error key, or schema-invalid', () => {
    const t = clone(c2);
    const v = t.victims[0]!;
    const clean = structuredClone(v.implicit.payload);
    // Replace the payload by the clean result of the victim: nothing is implausible any more.
    const run = runCleanPath(t, t.paths[0]!);
    v.implicit.payload = run.outputs.get(v.node)!;
    expect(rules(t)).toContain('implicit');
    const u = clone(c2);
    u.victims[0]!.implicit.payload = { ...clean, error: 'x' };
    expect(rules(u)).toContain('implicit');
    const w = clone(c2);
    w.victims[0]!.implicit.payload = { ...clean, surprise: 1 };
    expect(lintTask(w).some((i) => i.rule === 'implicit' && /schema/.test(i.message))).toBe(true);
  });

  it('corrupted_values that do not match the payload', () => {
    const t = clone(c2);
    t.victims[0]!.implicit.corrupted_values = ['nothing-like-this'];
    expect(rules(t)).toContain('implicit');
  });

  it('stored paths edited by hand, or a victim missing from a path', () => {
    const t = clone(c2);
    t.paths = t.paths.slice(1);
    expect(rules(t)).toContain('paths');
    const u = clone(c3);
    u.victims = u.victims.slice(1);
    expect(rules(u)).toContain('victims');
  });

  it('a wrong expected answer, or a path that no longer executes', () => {
    const t = clone(c1);
    t.answer.value = typeof t.answer.value === 'number' ? t.answer.value + 1 : `${t.answer.value}x`;
    expect(rules(t)).toContain('execution');
    const u = clone(c1);
    const s = u.steps[0]!;
    if (s.kind !== 'node') throw new Error('c1 starts with a node');
    const firstLiteral = Object.keys(s.node.args).find((k) => 'literal' in s.node.args[k]!)!;
    s.node.args[firstLiteral] = { literal: 'NO-SUCH-ENTITY' };
    expect(rules(u)).toContain('execution');
  });

  it('a binding to a later node or to a field the tool does not return', () => {
    const t = clone(c1);
    const last = t.steps.at(-1)!;
    if (last.kind !== 'node') throw new Error('c1 ends with a node');
    const k = Object.keys(last.node.args)[0]!;
    last.node.args[k] = { ref: (t.steps[0] as { node: { id: string } }).node.id, field: 'no_such_field' };
    expect(rules(t)).toContain('bindings');
  });

  it('a query that names a tool or contains the answer', () => {
    const t = clone(c1);
    t.query = `Use ${t.paths[0]!.tools[0]} to find it.`;
    expect(rules(t)).toContain('query');
    const u = clone(c1);
    u.query = `${u.query} (I think it is ${String(u.answer.value)})`;
    expect(rules(u)).toContain('query');
  });

  it('a tool used on two nodes (victim selection is by tool name)', () => {
    const t = clone(c1);
    const [a, b] = t.steps as Array<{ kind: 'node'; node: { tool: string } }>;
    b!.node.tool = a!.node.tool;
    t.paths = enumeratePaths(t);
    expect(rules(t)).toContain('graph');
  });
});
