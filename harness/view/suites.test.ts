import { describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/cli.ts';
import '../builtin/index.ts';
import { runSuite } from '../launch/run-suite.ts';
import { mazeSuite } from '../maze/suite.ts';
import { loadMazeTasks } from '../maze/task.ts';
import { probeSuite } from '../probe/suite.ts';
import { loadRunDir } from './load.ts';
import type { Section } from './model.ts';

// The case views of real runs (tiny, in this process, real HTTP to the simulator): what each suite writes today is
// what the viewer's mappings read — a renamed field would leave a section empty, and these tests would say so.

const titles = (sections: Section[]) => sections.map((s) => s.title);

describe("the viewer reads each suite's files as they are written", () => {
  it("Maze: the perturbation, the judge's rules, the conversation", async () => {
    const only = loadMazeTasks(undefined, ['c1'])
      .slice(0, 1)
      .map((t) => t.id)
      .join(',');
    const out = tempDir('view-maze');
    await runSuite(mazeSuite, {
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_OUT_DIR: out,
      TOOLGAUGE_MAZE_ONLY: only,
      TOOLGAUGE_MAZE_MODES: 'P2',
    });
    const run = loadRunDir(out);
    expect(run.problems).toEqual([]);
    const c = run.cases[0]!;
    expect(c.row).toMatchObject({ status: 'pass', tags: ['complexity=c1', 'mode=P2'] });
    expect(c.detail.input).toBeTruthy();
    expect(titles(c.detail.sections)).toEqual(
      expect.arrayContaining([
        'Perturbation: every tool call, its status and the result the tool gave',
        "Judge's reading (compat)",
        'Transcript',
      ]),
    );
    const judge = c.detail.sections.find((s) => s.title === "Judge's reading (compat)") as Extract<
      Section,
      { kind: 'table' }
    >;
    expect(judge.rows.length).toBeGreaterThan(0);
    const perturbation = c.detail.sections.find((s) => s.title.startsWith('Perturbation')) as Extract<
      Section,
      { kind: 'table' }
    >;
    expect(perturbation.rows.some((r) => r[3] !== 'clean')).toBe(true);
  });

  it('Probe: the raw output, the parse per tier, the attribution', async () => {
    const out = tempDir('view-probe');
    await runSuite(probeSuite, {
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_OUT_DIR: out,
      TOOLGAUGE_PROBE_ONLY: 'c1_weather_dev_000',
    });
    const run = loadRunDir(out);
    expect(run.problems).toEqual([]);
    const c = run.cases[0]!;
    expect(c.row).toMatchObject({ id: 'c1_weather_dev_000', status: 'pass', tags: expect.arrayContaining(['cat=C1']) });
    expect(c.detail.expected).toMatch(/^get_weather\(/);
    expect(c.detail.predicted).toMatch(/^get_weather\(/);
    expect(titles(c.detail.sections)).toEqual(
      expect.arrayContaining([
        'Raw output',
        'Parse per tier',
        'Attribution per tier, with its evidence',
        'cases.jsonl line',
      ]),
    );
    expect(c.detail.scorers.map((s) => s.name)).toEqual(
      expect.arrayContaining(['strict parse_ok', 'lenient args_correct']),
    );
  });
});
