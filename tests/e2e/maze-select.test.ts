import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inProcess, readLines, tempDir } from '../helpers/cli.ts';

// Which runs `toolgauge maze` makes: an unknown id is refused (exit 2) instead of running nothing, and a
// task-plus-mode id (ToolMaze's `C1_task_001_P0`) selects exactly that run. In process, real HTTP to the simulator.
describe('toolgauge maze --only / --task-id', () => {
  it('refuses unknown ids with exit 2 and one line naming them', async () => {
    const out = tempDir('maze-unknown');
    const r = await inProcess(['maze', '--model', 'sim:oracle', '--only', 'C1_task_001,nope_1,C1_task_001_P9', '--modes', 'P0', '--out-dir', out], {});
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const line = r.stderr.split('\n').find((l) => l.includes('nope_1'));
    expect(line).toBeDefined();
    // Exactly the unknown ones are named, not the known task given with them.
    expect(/no task (.*?) in /.exec(line!)?.[1]?.split(', ')).toEqual(['nope_1', 'C1_task_001_P9']);
    expect(readLines(join(out, 'instances.jsonl'))).toEqual([]);
    // A task of a category not selected is unknown too.
    const other = await inProcess(['maze', '--model', 'sim:oracle', '--categories', 'c2', '--task-id', 'C1_task_001', '--out-dir', tempDir('maze-unknown2')], {});
    expect(other.code).toBe(2);
  });

  it('runs exactly the task-plus-mode run named, next to a whole task', async () => {
    const out = tempDir('maze-task-id');
    const r = await inProcess(['maze', '--model', 'sim:oracle', '--task-id', 'C1_task_001_P2', '--only', 'C2_task_001', '--modes', 'P0,P3', '--out-dir', out], {});
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const ids = readLines<{ id: string }>(join(out, 'instances.jsonl')).map((m) => m.id).sort();
    expect(ids).toEqual(['C1_task_001:P2', 'C2_task_001:P0', 'C2_task_001:P3']);
  });
});
