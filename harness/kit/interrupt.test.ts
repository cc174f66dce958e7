import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/cli.ts';
import { interruptLine, keptBy, resumeCommand } from './interrupt.ts';
import { MARKER } from './outdir.ts';

describe('the line an interrupted run prints', () => {
  it("counts the finished instances of the folders this run claimed, not another run's", () => {
    const root = tempDir('kept');
    const folder = (name: string, runId: string, ids: string[]) => {
      const d = join(root, name);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, MARKER), runId);
      const line = (id: string) => JSON.stringify({ suite: name, id, trial: 0, error: null, pass: true });
      writeFileSync(join(d, 'instances.jsonl'), ids.map(line).join('\n') + '\n');
    };
    folder('mine', 'run-1', ['a', 'b', 'a']);
    folder('other', 'run-0', ['x']);
    expect(keptBy(root, 'run-1')).toEqual([{ dir: join(root, 'mine'), finished: 2 }]);
    expect(keptBy(join(root, 'missing'), 'run-1')).toEqual([]);
  });

  it('says the command that resumes, quoted for a shell, --resume added once', () => {
    expect(resumeCommand(['eval', 'my evals/a.eval.ts', '-t', "it's"])).toBe(
      `toolgauge eval 'my evals/a.eval.ts' -t 'it'\\''s' --resume`,
    );
    expect(resumeCommand(['toolhop', '--resume'])).toBe('toolgauge toolhop --resume');
    expect(interruptLine('toolgauge toolhop', [{ dir: '/w/results/t', finished: 1 }], 'R', '/w')).toBe(
      'toolgauge toolhop: interrupted; kept 1 finished instance in results/t; resume with: R',
    );
  });
});
