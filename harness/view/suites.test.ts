import { describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/cli.ts';
import { apibankSuite } from '../apibank/suite.ts';
import { HAS_SHARED_APIBANK, SHARED_APIBANK } from '../apibank/testkit.ts';
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

  it.skipIf(!HAS_SHARED_APIBANK)(
    `API-Bank: the verdict, expected beside predicted, the dialogue, the transcript${HAS_SHARED_APIBANK ? '' : ' — SKIPPED: needs ../shared/data/apibank'}`,
    async () => {
      const out = tempDir('view-apibank');
      await runSuite(apibankSuite, {
        TOOLGAUGE_MODEL: 'sim:wrong_name',
        TOOLGAUGE_OUT_DIR: out,
        TOOLGAUGE_APIBANK_DATA: SHARED_APIBANK,
        TOOLGAUGE_APIBANK_LIMIT: '1',
      });
      const run = loadRunDir(out);
      expect(run.problems).toEqual([]);
      const c = run.cases[0]!;
      expect(c.row).toMatchObject({
        status: 'fail',
        cause: 'api_name',
        tags: expect.arrayContaining(['topology=single']),
      });
      expect(c.detail.expected).toMatch(/^\[\w+\(/);
      expect(c.detail.predicted).not.toBe(c.detail.expected);
      expect(titles(c.detail.sections)).toEqual(
        expect.arrayContaining([
          "The reference's verdict",
          'Expected and predicted call',
          'Dialogue before the call',
          'Transcript',
          'results.jsonl line',
        ]),
      );
      const dialogue = c.detail.sections.find((s) => s.title === 'Dialogue before the call') as Extract<
        Section,
        { kind: 'conversation' }
      >;
      expect(dialogue.turns[0]!.role).toBe('user');
      expect(c.detail.scorers.map((s) => [s.name, s.value])).toEqual([
        ['correct', '0'],
        ['API name', '0'],
      ]);
    },
    60_000,
  );
});
