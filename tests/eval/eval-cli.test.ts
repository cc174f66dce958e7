import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { inProcess, tempDir } from '../helpers/cli.ts';

// `toolgauge eval` in this process on a tiny eval file (no model request: the task answers itself) — what it prints
// where, and its exit codes.

/** An eval file named `name` whose cases pass or fail as `cases` says, or whose task throws for the id 'throws'. */
function evalFile(dir: string, name: string, cases: Record<string, boolean>): string {
  const file = join(dir, `${name}.eval.ts`);
  writeFileSync(
    file,
    `import { describeEval, scorers } from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))};
const out = (answer) => ({ output: answer, answer, toolCalls: [], messages: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, turns: 1 });
describeEval(${JSON.stringify(name)}, {
  data: () => ${JSON.stringify(Object.keys(cases).map((id) => ({ id, input: id })))},
  task: async (input) => {
    if (input === 'throws') throw new Error('boom');
    return out(${JSON.stringify(cases)}[input] ? 'yes' : 'no');
  },
  scorers: [scorers.custom('said_yes', ({ output }) => output.answer === 'yes')],
});
`,
  );
  return file;
}

describe('toolgauge eval', () => {
  it('--json: one JSON document on stdout (each eval with its summary.json and the exit code), the rest on stderr', async () => {
    const dir = tempDir('eval-json');
    const file = evalFile(dir, 'jsoned', { a: true, b: false });
    const r = await inProcess(['eval', file, '--model', 'sim:oracle', '--out-dir', join(dir, 'out'), '--json'], {});
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      evals: Array<{ name: string; outDir: string; summary: { metrics: Record<string, { value: number }> } }>;
      exitCode: number;
    };
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(doc.exitCode).toBe(0);
    expect(doc.evals.map((e) => [e.name, e.outDir])).toEqual([['jsoned', join(dir, 'out')]]);
    expect(doc.evals[0]!.summary.metrics.pass_rate!.value).toBe(0.5);
    // Vitest's output and the terminal summary went to stderr
    expect(r.stderr).toContain('jsoned › b');
    expect(r.stderr).toContain('pass_rate');
  });

  // The table in docs/eval.md ("Exit codes"); the run end's rule itself: harness/kit/run-end.test.ts.
  it('exit codes: failing cases without a gate 0 (above); a harness error 1, even under a gate that passes; usage 2', async () => {
    const dir = tempDir('eval-codes');
    const file = evalFile(dir, 'coded', { a: true, throws: true });
    const r = await inProcess(
      ['eval', file, '--model', 'sim:oracle', '--out-dir', join(dir, 'out'), '--gate', 'pass_rate>=0'],
      {},
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('coded throws: harness error: Error: boom');
    for (const args of [['missing.eval.ts'], [file, '--gate', 'pass_rate>>1'], [file, '--no-such-flag']]) {
      const u = await inProcess(['eval', ...args], {});
      expect(u.code, args.join(' ')).toBe(2);
      expect(u.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});
