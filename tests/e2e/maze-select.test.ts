import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { mazeSuite } from '../../harness/maze/suite.ts';
import { inProcess, readJson, readLines, tempDir } from '../helpers/cli.ts';

// Which runs `toolgauge maze` makes: an unknown id is refused (exit 2) instead of running nothing, and a
// task-plus-mode id (ToolMaze's `C1_task_001_P0`) selects exactly that run, and each run's token usage is kept. In process, real HTTP to the simulator.
describe('toolgauge maze --only / --task-id', () => {
  it('refuses unknown ids with exit 2 and one line naming them', async () => {
    const out = tempDir('maze-unknown');
    const r = await inProcess(
      [
        'maze',
        '--model',
        'sim:oracle',
        '--only',
        'C1_task_001,nope_1,C1_task_001_P9',
        '--modes',
        'P0',
        '--out-dir',
        out,
      ],
      {},
    );
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const line = r.stderr.split('\n').find((l) => l.includes('nope_1'));
    expect(line).toBeDefined();
    // Exactly the unknown ones are named, not the known task given with them.
    expect(/no task (.*?) in /.exec(line!)?.[1]?.split(', ')).toEqual(['nope_1', 'C1_task_001_P9']);
    expect(readLines(join(out, 'instances.jsonl'))).toEqual([]);
    // Through the API too (no CLI in front of the suite).
    await expect(
      runSuite(mazeSuite, {
        TOOLGAUGE_MODEL: 'sim:oracle',
        TOOLGAUGE_MAZE_ONLY: 'nope_2',
        TOOLGAUGE_OUT_DIR: tempDir('maze-unknown-api'),
      }),
    ).rejects.toThrow(/no task nope_2 in/);
    // A task of a category not selected is unknown too.
    const other = await inProcess(
      [
        'maze',
        '--model',
        'sim:oracle',
        '--categories',
        'c2',
        '--task-id',
        'C1_task_001',
        '--out-dir',
        tempDir('maze-unknown2'),
      ],
      {},
    );
    expect(other.code).toBe(2);
  });

  it('runs exactly the task-plus-mode run named, next to a whole task', async () => {
    const out = tempDir('maze-task-id');
    const r = await inProcess(
      [
        'maze',
        '--model',
        'sim:oracle',
        '--task-id',
        'C1_task_001_P2',
        '--only',
        'C2_task_001',
        '--modes',
        'P0,P3',
        '--out-dir',
        out,
      ],
      {},
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const ids = readLines<{ id: string }>(join(out, 'instances.jsonl'))
      .map((m) => m.id)
      .sort();
    expect(ids).toEqual(['C1_task_001:P2', 'C2_task_001:P0', 'C2_task_001:P3']);

    // Token usage: per run in the inference file and the run's journal line, totals per mode in the summary.
    type U = { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    const metas = readLines<{ id: string; mode: string; usage?: U }>(join(out, 'instances.jsonl'));
    for (const m of metas) {
      const [task, mode] = m.id.split(':');
      const inf = readJson<{ usage?: U; turns: number }>(
        join(out, task!.slice(0, 2).toLowerCase(), 'inferences', `${task}_${mode}_inference.json`),
      );
      expect(inf.usage?.prompt_tokens, m.id).toBeGreaterThan(0);
      expect(inf.usage?.completion_tokens, m.id).toBeGreaterThan(0);
      expect(inf.usage!.total_tokens).toBe(inf.usage!.prompt_tokens + inf.usage!.completion_tokens);
      expect(m.usage, m.id).toEqual(inf.usage);
    }
    const tokens = readJson<{ extra: { tokens: Record<string, U & { runs: number; runs_with_usage: number }> } }>(
      join(out, 'summary.json'),
    ).extra.tokens;
    const sum = (ms: typeof metas, k: keyof U) => ms.reduce((a, m) => a + m.usage![k], 0);
    for (const mode of ['P0', 'P2', 'P3']) {
      const ms = metas.filter((m) => m.mode === mode);
      expect(tokens[mode]).toEqual({
        runs: ms.length,
        runs_with_usage: ms.length,
        prompt_tokens: sum(ms, 'prompt_tokens'),
        completion_tokens: sum(ms, 'completion_tokens'),
        total_tokens: sum(ms, 'total_tokens'),
      });
    }
    expect(tokens.all!.total_tokens).toBe(sum(metas, 'total_tokens'));
    expect(r.stdout).toContain(
      `tokens: ${sum(metas, 'prompt_tokens')} prompt + ${sum(metas, 'completion_tokens')} completion over 3 runs`,
    );
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/## Tokens per mode[\s\S]*\| P2 \| 1 \| 1 \|/);
  });
});
