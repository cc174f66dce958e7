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

  it('runs every cell a runner of the reference runs, others only with --allow-any-cell; by default each team at its baseline size', () => {
    // The reference's independent and decentralized runners take any team size from the environment.
    expect(planSweep(['--topologies', 'independent,decentralized', '--agents', '3,5'], SIM).cells).toHaveLength(5);
    expect(() => planSweep(['--topologies', 'sequential', '--agents', '3'], SIM)).toThrow(
      /cell sequential-3-freeform\): sequential × 3 agents × freeform is a cell no runner of the reference runs: team size 3 .*--allow-any-cell/,
    );
    expect(planSweep(['--topologies', 'sequential', '--agents', '3', '--allow-any-cell'], SIM).cells).toHaveLength(2);
    expect(planSweep(['--topologies', 'independent,sequential', '--agents', '2,4,8,10'], SIM).cells).toHaveLength(9);
    // The reference's own spelling of a list: the words after the flag.
    expect(
      planSweep(['--topologies', 'independent', 'sequential', '--agents', '2', '4', '8', '10'], SIM).cells,
    ).toHaveLength(9);
    expect(planSweep([], SIM).cells.map((c) => c.agents)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('toolgauge toolhop: a cell no runner of the reference runs', () => {
  it.each([
    [
      ['--topology', 'centralized', '--agents', '5'],
      /centralized × 5 agents × 1 rounds × freeform is a cell no runner .*team size 6 \(manager \+ 5\) \(the reference runs 2, 4, 8, 10\); pass --allow-any-cell/,
    ],
    [
      ['--topology', 'sequential', '--agents', '5'],
      /sequential × 5 agents × freeform is a cell no runner .*team size 5/,
    ],
    [
      ['--topology', 'centralized', '--rounds', '2'],
      /centralized × 3 agents × 2 rounds × freeform is a cell no runner .*2 rounds \(the reference runs 1\)/,
    ],
    [
      ['--topology', 'centralized', '--agents', '3', '--comm', 'structured', '--rounds', '1', '--agents', '7'],
      /centralized × 7 agents × 1 rounds × structured is a cell no runner .*format structured at team size 8/,
    ],
  ])('%j is refused in one line before anything runs', async (flags, message) => {
    await expect(run([...flags, '--model', 'sim:oracle'])).rejects.toThrow(message);
  });
});
