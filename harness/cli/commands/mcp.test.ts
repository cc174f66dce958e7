import { describe, expect, it } from 'vitest';
import { inProcess } from '../../../tests/helpers/cli.ts';

// `toolgauge mcp serve`'s refusals: each one line naming the flag or id, exit 2, before anything listens.
describe('toolgauge mcp serve: usage errors', () => {
  it.each([
    [['mcp'], /expected .toolgauge mcp serve maze\|toolhop/],
    [['mcp', 'serve', 'bfcl', '--task', 'x'], /no tool world 'bfcl' \(expected maze or toolhop\)/],
    [['mcp', 'serve', 'maze', '--task', 'C1_task_001', '--row', '1'], /--row is not a flag of maze/],
    [['mcp', 'serve', 'toolhop'], /--row ID is required/],
    [['mcp', 'serve', 'maze'], /--task ID is required/],
    [['mcp', 'serve', 'maze', '--task', 'C9_task_404'], /--task: no task C9_task_404/],
    [['mcp', 'serve', 'maze', '--task', 'C1_task_001_P2', '--mode', 'P1'], /names mode P2, --mode says P1/],
    [['mcp', 'serve', 'maze', '--task', 'C1_task_001', '--mode', 'P7'], /--mode must be one of P0\|P1/],
    [['mcp', 'serve', 'maze', '--task', 'C1_task_001', '--port', '8000'], /--port needs --transport http/],
  ])('%j', async (argv, message) => {
    const r = await inProcess(argv, { TOOLHOP_ALLOW_DATASET_EXEC: '1' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });

  it('toolhop: runs dataset code only when TOOLHOP_ALLOW_DATASET_EXEC=1, and names a row that is not there', async () => {
    const gated = await inProcess(['mcp', 'serve', 'toolhop', '--row', '1'], { TOOLHOP_ALLOW_DATASET_EXEC: '0' });
    expect([gated.code, gated.stderr]).toEqual([2, expect.stringMatching(/requires TOOLHOP_ALLOW_DATASET_EXEC=1/)]);
    const missing = await inProcess(['mcp', 'serve', 'toolhop', '--row', '999999'], {
      TOOLHOP_ALLOW_DATASET_EXEC: '1',
    });
    expect([missing.code, missing.stderr]).toEqual([
      2,
      expect.stringMatching(/--row: no row 999999 in .*sample\.json\n$/),
    ]);
  });
});
