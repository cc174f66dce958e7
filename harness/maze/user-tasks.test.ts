import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { judge } from './judge.ts';
import { runLocal } from './run-local.ts';
import { mazeTasksOf } from './tasks-of.ts';
import { lintTask } from './lint.ts';
import { DEFAULT_CASES_DIR, MazeTask, MODES } from './task.ts';
import { parse as parseYaml } from 'yaml';
import { useToolLibrary } from './tools/index.ts';
import { loadUserTasks } from './user-tasks.ts';

// A user's own tools and task graph, from files, through the Maze engine in process: the books domain of
// tests/fixtures/maze-tools (two substitute price sources over a table) and a C2 task over it and a built-in math tool.
const FIXTURES = new URL('../../tests/fixtures/maze-tools/', import.meta.url).pathname;
const config = {
  casesDir: '',
  categories: ['c1', 'c2', 'c3', 'c4'] as const,
  toolPaths: [join(FIXTURES, 'books.yaml')],
  tasksFile: join(FIXTURES, 'books-tasks.yaml'),
};

function tempTasks(text: string): string {
  const dir = join(tmpdir(), `toolgauge-maze-tasks-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const f = join(dir, `t${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(f, text);
  return f;
}

describe("a user's task graph over a user's tools", () => {
  afterAll(() => {
    useToolLibrary([]);
  });

  const tasks = mazeTasksOf({ ...config, categories: [...config.categories] });
  const task = tasks[0]!;

  it('is completed like a generated task: paths, the answer from the runs, one victim per choice', () => {
    expect(tasks.map((t) => t.id)).toEqual(['BOOKS_task_001']);
    expect(task.paths.map((p) => p.tools)).toEqual([
      ['get_book_price', 'multiply_values'],
      ['bookshop_catalogue_lookup', 'multiply_values'],
    ]);
    // 3 copies at the table's 18.50
    expect(task.answer.value).toBe(55.5);
    expect(task.victims.map((v) => [v.group, v.tool])).toEqual([
      ['price', 'get_book_price'],
      ['price', 'bookshop_catalogue_lookup'],
    ]);
    // the corruption differs from the clean price somewhere the agent can see it
    for (const v of task.victims)
      expect(v.implicit.payload).not.toEqual({ isbn: '978-1-00-000001-1', title: 'The Quiet Orchard', price: 18.5 });
  });

  it('runs through the engine and the judge: the oracle recovers in every mode, the naive policy only when nothing fails', () => {
    for (const mode of MODES) {
      const oracle = runLocal(task, mode, 'oracle');
      expect(judge(task, mode, oracle.trace, oracle.finalAnswer, { mode: 'strict' }).pass, `oracle ${mode}`).toBe(true);
      const naive = runLocal(task, mode, 'naive');
      expect(judge(task, mode, naive.trace, naive.finalAnswer, { mode: 'strict' }).pass, `naive ${mode}`).toBe(
        mode === 'P0',
      );
    }
    // P2 takes the victim's error, then the other price source
    const p2 = runLocal(task, 'P2', 'oracle').trace.map((e) => [e.name, e.status]);
    expect(p2[0]![1]).toBe('explicit_error');
    expect(p2.at(-1)).toEqual(['multiply_values', 'clean']);
  });

  it('a file whose task cannot run is refused with one line naming the file, the task and the field', () => {
    const bad = (over: string) =>
      tempTasks(
        `version: 1\ncomplexity: c1\ntasks:\n  - {id: T1, domains: [retail, math], query: "What is the sales tax in Norway on a purchase of 200 dollars?", ${over}}\n`,
      );
    const steps =
      "steps: [{kind: node, node: {id: t, tool: get_tax_rate, args: {country: {literal: 'NO'}}}}, {kind: node, node: {id: s, tool: percent_of, args: {value: {literal: 200}, percent: {ref: t, field: tax_rate_pct}}}}]";
    expect(loadUserTasks(bad(`${steps}, answer: {ref: s, field: result, match: number}`))[0]!.answer.value).toBe(50);
    expect(() =>
      loadUserTasks(
        bad(`${steps.replace('percent_of', 'no_such_tool')}, answer: {ref: s, field: result, match: number}`),
      ),
    ).toThrow(/t\w+\.yaml: task T1: field steps: no tool 'no_such_tool'/);
    expect(() => loadUserTasks(bad(`${steps}, answer: {ref: s, field: result, match: number, value: 60}`))).toThrow(
      /task T1: field answer\.value: the paths give 50, not 60/,
    );
    expect(() => loadUserTasks(bad(`${steps}, answer: {ref: s, field: result, match: numeric}`))).toThrow(
      /task T1: field answer\.match: /,
    );
    expect(() =>
      loadUserTasks(bad(`${steps.replace("'NO'", "'XX'")}, answer: {ref: s, field: result, match: number}`)),
    ).toThrow(/task T1: field steps: path .*get_tax_rate\) failed: no tax rate for "XX"/);
    expect(() => loadUserTasks(tempTasks('version: 1\ntasks: []\n'))).toThrow(/field tasks: /);
    expect(() => loadUserTasks(tempTasks('version: 1\ntasks: [\n'))).toThrow(/t\w+\.yaml: not valid YAML: /);
  });
});

describe('a hostile task file is refused with one line, before it is expanded or run at length', () => {
  afterAll(() => {
    useToolLibrary([]);
  });
  const slot = (k: number) =>
    `{kind: slot, id: s${k}, choices: [{id: a, nodes: [{id: a${k}, tool: sum_values, args: {a: {literal: 1}, b: {literal: 2}}}], output: a${k}}, {id: b, nodes: [{id: b${k}, tool: sum_values, args: {a: {literal: 1}, b: {literal: 2}}}], output: b${k}}]}`;
  const slots = Array.from({ length: 26 }, (_, k) => slot(k)).join(', ');
  const query = 'query: "What is one plus two, asked twenty-six times over?"';

  it('26 two-choice slots (2^26 paths) in a graph, or in a task given in full', { timeout: 20_000 }, () => {
    const graph = `version: 1\ncomplexity: c4\ntasks:\n  - {id: WIDE, domains: [math], ${query}, steps: [${slots}], answer: {ref: s0, field: sum, match: number}}\n`;
    expect(() => loadUserTasks(tempTasks(graph))).toThrow(
      /task WIDE: field steps: the slots expand to 67108864 paths, over the limit of 256$/,
    );
    const victim =
      "{group: s0, choice: a, node: a0, tool: sum_values, explicit: {P1: 'x', P2: 'y'}, implicit: {detector: unit_scale, field: sum, payload: {sum: 3000}, corrupted_values: [3000]}}";
    const full = `version: 1\ncomplexity: c4\ntasks:\n  - {id: WIDE, template: t, domains: [math], ${query}, steps: [${slots}], answer: {ref: s0, field: sum, match: number, value: 3}, paths: [{id: p0, nodes: [a0], tools: [sum_values], group_choices: []}], victims: [${victim}]}\n`;
    // the linter reports the expansion and stops there (the file's first issue is the graph's repeated tool)
    expect(() => loadUserTasks(tempTasks(full))).toThrow(/task WIDE: field graph: /);
    const task = MazeTask.parse(
      (parseYaml(full) as { tasks: unknown[] }).tasks.map((t) => ({ complexity: 'c4', ...(t as object) }))[0],
    );
    expect(lintTask(task).find((i) => i.rule === 'paths')?.message).toBe(
      'the slots expand to 67108864 paths, over the limit of 256',
    );
  });

  it("a full-form task's id is one file-name part", () => {
    const task = JSON.parse(readFileSync(join(DEFAULT_CASES_DIR, 'c1.json'), 'utf8')).tasks[0];
    const file = (id: string) => {
      const f = tempTasks('');
      writeFileSync(f.replace(/\.yaml$/, '.json'), JSON.stringify({ version: 1, tasks: [{ ...task, id }] }));
      return f.replace(/\.yaml$/, '.json');
    };
    expect(loadUserTasks(file(task.id)).map((t) => t.id)).toEqual([task.id]);
    expect(() => loadUserTasks(file('a/b'))).toThrow(/task a\/b: field id: letters, digits, _ \. - only/);
  });

  it("a tool that recurses without end or asks for a huge string: the path's tool error, one line", () => {
    const tools = tempTasks(`version: 1
domain: books
functions:
  spin: { params: [n], body: "spin(n + 1)" }
tools:
  - name: get_spin
    category: source
    description: Spins.
    parameters: { type: object, properties: { isbn: { type: string, description: ISBN } }, required: [isbn] }
    output: { type: object, properties: { v: { type: number, description: V } }, required: [v] }
    run:
      - return: { v: "spin(0)" }
  - name: get_pad
    like: get_spin
    run:
      - return: { v: "len(pad_start(args.isbn, 900000000))" }
`);
    useToolLibrary([tools]);
    const task = (tool: string) =>
      tempTasks(
        `version: 1\ncomplexity: c1\ntasks:\n  - {id: SPIN, domains: [books], query: "What is the spin of the book 978-1-00-000001-1?", steps: [{kind: node, node: {id: s, tool: ${tool}, args: {isbn: {literal: "978-1-00-000001-1"}}}}], answer: {ref: s, field: v, match: number}}\n`,
      );
    expect(() => loadUserTasks(task('get_spin'))).toThrow(
      /task SPIN: field steps: path p0: s \(get_spin\) failed: tool get_spin could not run: nested deeper than 250 evaluations/,
    );
    expect(() => loadUserTasks(task('get_pad'))).toThrow(
      /task SPIN: field steps: .*could not run: pad_start: a width of 900000000 is over the limit of 100000$/,
    );
  });
});
