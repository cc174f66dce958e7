import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { inProcess, readJson, tempDir, toolgauge } from '../helpers/cli.ts';

// `toolgauge maze --tools --tasks`: a user's tool file and task file (the books fixtures) through the CLI, the
// simulator over HTTP, the engine and the judge — one run shared by the file's tests.
const FIXTURES = fileURLToPath(new URL('../fixtures/maze-tools/', import.meta.url));
type Summary = {
  counts: { runs: number; passes: number; hits: number; errors: number };
  config: Record<string, unknown>;
  dataset: { origin: string };
};

describe('toolgauge maze with a user tool library and task file', () => {
  let out = '';
  let r: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    out = tempDir('maze-user-tools');
    r = await toolgauge([
      'maze',
      '--model',
      'sim:oracle',
      '--tools',
      join(FIXTURES, 'books.yaml'),
      '--tasks',
      join(FIXTURES, 'books-tasks.yaml'),
      '--out-dir',
      out,
    ]);
  });

  it('runs the user task in every mode against the user tools, and the oracle recovers every time', () => {
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s = readJson<Summary>(join(out, 'summary.json'));
    expect(s.counts).toMatchObject({ runs: 5, passes: 5, hits: 4, errors: 0 });
    expect(s.config.tools).toEqual([join(FIXTURES, 'books.yaml')]);
    expect(JSON.stringify(s)).toContain('1 user tool file');
    const p2 = readJson<{ pass: boolean; recovery: string }>(
      join(out, 'c2', 'evaluations', 'BOOKS_task_001_P2_eval.json'),
    );
    expect(p2).toMatchObject({ pass: true, recovery: 'switch' });
    const inf = readJson<{ tools?: Array<{ function: { name: string } }>; messages: unknown[] }>(
      join(out, 'c2', 'inferences', 'BOOKS_task_001_P0_inference.json'),
    );
    expect(JSON.stringify(inf)).toContain('bookshop_catalogue_lookup');
  });
});

describe('toolgauge maze with a hostile tool file', () => {
  it('a function that calls itself without end is one line naming the file, the task and the tool, exit 2', async () => {
    const dir = tempDir('maze-hostile-tools');
    const tools = join(dir, 'spin.yaml');
    writeFileSync(
      tools,
      `version: 1
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
`,
    );
    const tasks = join(dir, 'tasks.yaml');
    writeFileSync(
      tasks,
      `version: 1
complexity: c1
tasks:
  - id: SPIN_task_001
    domains: [books]
    query: What is the spin value of the book with ISBN 978-1-00-000001-1?
    steps:
      - { kind: node, node: { id: s, tool: get_spin, args: { isbn: { literal: "978-1-00-000001-1" } } } }
    answer: { ref: s, field: v, match: number }
`,
    );
    // In process (the same main() as the command): the file is refused before a run starts, so no process is needed.
    const r = await inProcess(
      ['maze', '--model', 'sim:oracle', '--tools', tools, '--tasks', tasks, '--out-dir', join(dir, 'out')],
      {},
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `toolgauge maze: ${tasks}: task SPIN_task_001: field steps: path p0: s (get_spin) failed: tool get_spin could not run: nested deeper than 250 evaluations (a function that calls itself without end?)`,
    ]);
  });
});
