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
