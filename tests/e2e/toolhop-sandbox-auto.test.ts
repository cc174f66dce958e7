import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tracePath } from '../../harness/kit/names.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { validSummary } from '../../harness/report/summary.ts';
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { readJson, readLines, tempDir } from '../helpers/cli.ts';

// `--sandbox auto` on rows whose tools import numpy, which the pyodide sandbox cannot run: in process, real HTTP to
// the simulator (sim:oracle), the real sandboxes. The expected tool results are worked out by hand below.

const PYTHON = '/usr/bin/python3';
const hasNumpy = (() => {
  try {
    execFileSync(PYTHON, ['-c', 'import numpy'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const tool = (name: string, param: string, type: string, description: string) => ({
  name,
  description,
  parameters: { type: 'object', properties: { [param]: { type, description: param } }, required: [param] },
});

/** Two rows whose every tool imports numpy inside its function: means of 2, 4, 9 → 5, then 0 + 1 + … + 5 → 15. */
const ROWS = [
  {
    id: 'np-mean',
    question: 'What is the mean reading of station Alpha?',
    answer: '5',
    sub_task: { 'What is the mean reading of station Alpha?': '5' },
    tools: {
      'What is the mean reading of station Alpha?': tool('station_mean', 'station', 'string', 'Mean of a station'),
    },
    functions: [
      [
        'def station_mean(station: str):',
        '    import numpy as np',
        "    readings = {'Alpha': [2, 4, 9], 'Beta': [1, 1]}",
        '    return int(np.mean(np.array(readings[station])))',
        '',
        '# Example usage: station_mean("Alpha")',
      ].join('\n'),
    ],
    domain: 'science',
    answer_type: 'number',
    previous_answer_type: 'number',
  },
  {
    id: 'np-chain',
    question: 'What is the sum of the integers from 0 up to the mean reading of station Alpha?',
    answer: '15',
    sub_task: {
      'What is the mean reading of station Alpha?': '5',
      'What is the sum of the integers from 0 up to 5?': '15',
    },
    tools: {
      'What is the mean reading of station Alpha?': tool('station_mean', 'station', 'string', 'Mean of a station'),
      'What is the sum of the integers from 0 up to 5?': tool('sum_up_to', 'n', 'integer', 'Sum of 0..n'),
    },
    functions: [
      [
        'def station_mean(station: str):',
        '    from numpy import mean',
        "    readings = {'Alpha': [2, 4, 9], 'Beta': [1, 1]}",
        '    return int(mean(readings[station]))',
        '',
        '# Example usage: station_mean("Alpha")',
      ].join('\n'),
      [
        'def sum_up_to(n: int):',
        '    import numpy',
        '    return int(numpy.arange(n + 1).sum())',
        '',
        '# Example usage: sum_up_to(5)',
      ].join('\n'),
    ],
    domain: 'science',
    answer_type: 'number',
    previous_answer_type: 'number',
  },
];

function dataset(): string {
  const file = join(tempDir('auto-data'), 'numpy-rows.json');
  writeFileSync(file, JSON.stringify(ROWS));
  return file;
}

const run = (python: string, out: string) =>
  runSuite(toolhopSuite, {
    TOOLHOP_DATA: dataset(),
    TOOLGAUGE_OUT_DIR: out,
    TOOLHOP_ALLOW_DATASET_EXEC: '1',
    TOOLGAUGE_MODEL: 'sim:oracle',
    TOOLGAUGE_SANDBOX: 'auto',
    TOOLGAUGE_PYTHON: python,
    TOOLGAUGE_SANDBOX_POOL: '1',
  });

type Trace = { sandbox: string | null; sandbox_needs: string[]; tool_executions: Array<{ content: string }> };

describe('toolhop --sandbox auto on rows that import numpy', () => {
  it.skipIf(!hasNumpy)(
    `runs them in CPython and they pass (needs ${PYTHON} with numpy${hasNumpy ? '' : ': absent, skipped'})`,
    async () => {
      const out = tempDir('auto-numpy');
      const r = await run(PYTHON, out);
      expect(r.finalized.harnessErrors).toBe(0);
      for (const m of r.metas) {
        expect(m).toMatchObject({ correct: true, error: null, tool_errors: 0, sandbox: 'python' });
        expect(m.sandbox_needs).toEqual(['numpy']);
      }
      // The tools really ran numpy: the results are the hand-computed ones.
      expect(readJson<Trace>(join(out, tracePath('np-mean', 0))).tool_executions.map((t) => t.content)).toEqual(['5']);
      const chain = readJson<Trace>(join(out, tracePath('np-chain', 0)));
      expect(chain.tool_executions.map((t) => t.content)).toEqual(['5', '15']);
      expect(chain).toMatchObject({ sandbox: 'python', sandbox_needs: ['numpy'] });
      const s = validSummary(readJson(join(out, 'summary.json')));
      expect(s.extra.sandbox).toEqual({ pyodide: 0, python: 2, environment_errors: 0, needs: { numpy: 2 } });
      expect(s.config.sandbox).toBe('auto');
    },
  );

  it('with no CPython they are environment errors, counted apart from wrong answers, and no model request is made', async () => {
    const out = tempDir('auto-nopython');
    const r = await run('/nonexistent/python3', out);
    expect(r.finalized.harnessErrors).toBe(2);
    for (const m of r.metas) {
      expect(m).toMatchObject({ correct: false, sandbox: null, sandbox_needs: ['numpy'], turns: 0, tool_calls: 0 });
      expect(m.error).toMatch(/^environment: the row's tools import numpy, .*\/nonexistent\/python3/);
    }
    const s = validSummary(readJson(join(out, 'summary.json')));
    expect(s.counts).toMatchObject({ errors: 2, wrong: 0, correct: 0 });
    expect(s.extra.sandbox).toEqual({ pyodide: 0, python: 0, environment_errors: 2, needs: { numpy: 2 } });
    const preds = readLines<{ error_kind: string }>(join(out, 'predictions.jsonl'));
    expect(preds.map((p) => p.error_kind)).toEqual(['environment', 'environment']);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('2 environment errors');
  });
});
