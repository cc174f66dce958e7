import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { readJson, tempDir, toolgauge } from '../helpers/cli.ts';

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
