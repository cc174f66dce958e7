import { describe, expect, it } from 'vitest';
import { inProcess } from '../../../tests/helpers/cli.ts';

// `toolgauge mcp serve maze`'s refusals: each one line naming the flag or id, exit 2, before anything listens.
describe('toolgauge mcp serve maze: usage errors', () => {
  it.each([
    [['mcp'], /expected `toolgauge mcp serve maze --task ID/],
    [['mcp', 'serve', 'bfcl', '--task', 'x'], /no tool world 'bfcl'/],
    [['mcp', 'serve', 'maze'], /--task ID is required/],
    [['mcp', 'serve', 'maze', '--task', 'C9_task_404'], /--task: no task C9_task_404/],
    [['mcp', 'serve', 'maze', '--task', 'C1_task_001_P2', '--mode', 'P1'], /names mode P2, --mode says P1/],
    [['mcp', 'serve', 'maze', '--task', 'C1_task_001', '--mode', 'P7'], /--mode must be one of P0\|P1/],
    [['mcp', 'serve', 'maze', '--task', 'C1_task_001', '--port', '8000'], /--port needs --transport http/],
  ])('%j', async (argv, message) => {
    const r = await inProcess(argv, {});
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});
