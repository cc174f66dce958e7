import { describe, expect, it } from 'vitest';
import { UsageError } from '../core/errors.ts';
import { planSweep, run as runCommand } from './command.ts';
import { SUITE_COMMAND_RUNNER } from '../cli/suite-command.ts';

const run = (argv: string[]) => runCommand(argv, SUITE_COMMAND_RUNNER);

// `toolgauge toolhop` and `toolhop sweep` before anything runs: the dataset opt-in, the suite command's checks on
// every cell, and the reference's experiment grid. All in process; nothing here reaches Vitest or a model.
const SIM = { TOOLGAUGE_MODEL: 'sim:oracle' };

describe('toolhop sweep: what it sets and checks before the first cell', () => {
  it("sets the dataset opt-in as the reference's sweep scripts do, unless the user set it", () => {
    expect(planSweep(['--topologies', 'single'], SIM).env.TOOLHOP_ALLOW_DATASET_EXEC).toBe('1');
    expect(
      planSweep(['--topologies', 'single'], { ...SIM, TOOLHOP_ALLOW_DATASET_EXEC: '0' }).env.TOOLHOP_ALLOW_DATASET_EXEC,
    ).toBe('0');
    expect(
      planSweep(['--topologies', 'single'], { ...SIM, TOOLHOP_ALLOW_DATASET_EXEC: '' }).env.TOOLHOP_ALLOW_DATASET_EXEC,
    ).toBe('');
  });

  it.each([
    [
      ['--data', '/nonexistent/toolhop.json'],
      /toolgauge toolhop sweep: --data '\/nonexistent\/toolhop\.json' does not exist/,
    ],
    [['--model', 'sim:no-such-policy'], /toolgauge toolhop sweep: --model /],
    [['--gate', 'no_such_metric >= 0.5'], /toolgauge toolhop sweep: --gate: /],
    [['--limit', 'x'], /--limit/],
  ])('refuses %j in one line, as `toolgauge toolhop` does', (flags, message) => {
    let err: unknown;
    try {
      planSweep(['--topologies', 'single,independent', ...flags], SIM);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('\n');
  });

  it("runs only cells of the reference's grid unless --allow-any-cell; by default each team at its baseline size", () => {
    expect(() => planSweep(['--topologies', 'independent', '--agents', '3'], SIM)).toThrow(
      /cell independent-3-freeform\): independent × 3 agents × freeform is outside the reference's experiment grid: team size 3 .*--allow-any-cell/,
    );
    expect(planSweep(['--topologies', 'independent', '--agents', '3', '--allow-any-cell'], SIM).cells).toHaveLength(2);
    expect(planSweep(['--topologies', 'independent,sequential', '--agents', '2,4,8,10'], SIM).cells).toHaveLength(9);
    expect(planSweep([], SIM).cells.map((c) => c.agents)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('toolgauge toolhop: a cell outside the reference grid', () => {
  it.each([
    [
      ['--topology', 'independent', '--agents', '5'],
      /independent × 5 agents × freeform is outside .*team size 5 \(the reference runs 2, 4, 8, 10\); pass --allow-any-cell/,
    ],
    [
      ['--topology', 'decentralized', '--rounds', '3'],
      /decentralized × 4 agents × 3 rounds × freeform is outside .*3 rounds \(the reference runs 2\)/,
    ],
    [
      ['--topology', 'centralized', '--agents', '3', '--comm', 'structured', '--rounds', '1', '--agents', '7'],
      /centralized × 7 agents × 1 rounds × structured is outside .*format structured at team size 8/,
    ],
  ])('%j is refused in one line before anything runs', async (flags, message) => {
    await expect(run([...flags, '--model', 'sim:oracle'])).rejects.toThrow(message);
  });
});
