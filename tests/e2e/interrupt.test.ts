import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { countLines, spawnToolgauge, tempDir } from '../helpers/cli.ts';

// Ctrl-C on `toolgauge eval`: a real process (the signal goes to the CLI, as a terminal sends it), an eval whose
// third case never ends while TG_HANG is set, so exactly two cases are finished when the signal comes. That the
// command it prints resumes (finished instances skipped) is tests/e2e/resume.test.ts's.

function hangingEval(dir: string): string {
  const file = join(dir, 'hang.eval.ts');
  writeFileSync(
    file,
    `import { describeEval, scorers } from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))};
const out = (answer) => ({ output: answer, answer, toolCalls: [], messages: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, turns: 1 });
describeEval('hang', {
  data: () => ['a', 'b', 'c', 'd'].map((id) => ({ id, input: id })),
  task: async (input) => {
    if (input === 'c' && process.env.TG_HANG === '1') await new Promise(() => {});
    return out('yes');
  },
  scorers: [scorers.custom('said_yes', ({ output }) => output.answer === 'yes')],
});
`,
  );
  return file;
}

describe('Ctrl-C on toolgauge eval', () => {
  it('prints one line with the finished instances kept, their folder and the command that resumes; exits 130', async () => {
    const dir = tempDir('interrupt');
    const file = hangingEval(dir);
    const out = join(dir, 'out');
    const args = ['eval', file, '--model', 'sim:oracle', '--out-dir', out, '--concurrency', '1'];
    // From the repository's root: the command the CLI prints to resume names the output folder relative to it.
    const child = spawnToolgauge(args, { TG_HANG: '1' }, fromRoot());
    try {
      const deadline = Date.now() + 60_000;
      while (countLines(join(out, 'instances.jsonl')) < 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(countLines(join(out, 'instances.jsonl'))).toBe(2);
      process.kill(child.pid!, 'SIGINT');
      const r = await child;
      expect(r.exitCode, String(r.stderr)).toBe(130);
      const said = String(r.stderr)
        .split('\n')
        .filter((l) => l.includes('interrupted'));
      const resume = `toolgauge ${args.join(' ')} --resume`;
      expect(said).toEqual([
        `toolgauge eval: interrupted; kept 2 finished instances in ${relative(fromRoot(), out)}; resume with: ${resume}`,
      ]);
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the process group has ended
      }
    }
  });
});

describe('SIGTERM on a suite command (a CI job timeout, kill)', () => {
  it('prints the same one line with the finished instances kept and the command that resumes; exits 143', async () => {
    const out = join(tempDir('terminate'), 'out');
    // Slow rows, one at a time: the signal comes while later rows are still to run.
    const args = [
      'toolhop',
      '--limit',
      '10',
      '--concurrency',
      '1',
      '--model',
      'sim:oracle?latency_ms=300',
      '--out-dir',
      out,
    ];
    const child = spawnToolgauge(args, { TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLGAUGE_SANDBOX: 'python' }, fromRoot());
    try {
      const deadline = Date.now() + 60_000;
      while (countLines(join(out, 'instances.jsonl')) < 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      process.kill(child.pid!, 'SIGTERM');
      const r = await child;
      expect(r.exitCode, String(r.stderr)).toBe(143);
      const said = String(r.stderr)
        .split('\n')
        .filter((l) => l.includes('interrupted'));
      expect(said, String(r.stderr)).toHaveLength(1);
      const m = /^toolgauge toolhop: interrupted; kept (\d+) finished instances in (\S+); resume with: (.*)$/.exec(
        said[0]!,
      );
      expect(m, said[0]).not.toBeNull();
      // The count is the journal's when the signal came: at least the two seen, none that is not on disk.
      expect(Number(m![1])).toBeGreaterThanOrEqual(2);
      expect(Number(m![1])).toBeLessThanOrEqual(countLines(join(out, 'instances.jsonl')));
      expect(m![2]).toBe(relative(fromRoot(), out));
      expect(m![3]).toBe(
        `toolgauge toolhop --limit 10 --concurrency 1 --model 'sim:oracle?latency_ms=300' --out-dir ${out} --resume`,
      );
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the process group has ended
      }
    }
  });
});
