import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recomputeFromFiles } from '../../harness/maze/output.ts';
import { loadMazeTasks } from '../../harness/maze/task.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { mazeSuite } from '../../harness/maze/suite.ts';
import { inProcess, readJson, readLines, tempDir } from '../helpers/cli.ts';

// Maze end to end: the agent loop over real HTTP against the simulator, the perturbation engine, the judge, the
// output tree and the report. A few tasks per complexity keep it quick; the whole maze runs in bench/maze.ts.
const pick = (c: 'c1' | 'c2' | 'c3' | 'c4', n: number) =>
  loadMazeTasks(undefined, [c])
    .slice(0, n)
    .map((t) => t.id);
const ONLY = [...pick('c1', 3), ...pick('c2', 3), ...pick('c3', 2), ...pick('c4', 2)].join(',');
type Est = { value: number; lo: number; hi: number; n: number };
type Summary = {
  metrics: { tsr: Record<string, Est>; prr: Record<string, Est>; rc: Record<string, Est> };
  counts: { runs: number; passes: number; errors: number };
};

describe('toolgauge maze on the simulator', () => {
  it('sim:oracle passes every run of every mode (C1 P2/P4 by aborting), and the files recompute to the same metrics', async () => {
    const out = tempDir('maze-oracle');
    // Through main() in this process: the run, its files and its terminal summary are the subject (the command's own
    // process runs in tests/e2e/maze-user-tools.test.ts).
    const r = await inProcess(
      [
        'maze',
        '--model',
        'sim:oracle',
        '--only',
        ONLY,
        '--out-dir',
        out,
        '--concurrency',
        '8',
        '--gate',
        'tsr.P2>=1,tsr.P3>=1',
      ],
      {},
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s = readJson<Summary>(join(out, 'summary.json'));
    expect(s.counts).toMatchObject({ runs: 50, passes: 50, errors: 0 });
    for (const m of ['P0', 'P1', 'P2', 'P3', 'P4']) expect(s.metrics.tsr[m]!.value, m).toBe(1);
    const c1Abort = readJson<{ recovery: string; pass: boolean }>(
      join(out, 'c1', 'evaluations', `${ONLY.split(',')[0]}_P2_eval.json`),
    );
    expect(c1Abort).toMatchObject({ recovery: 'abort', pass: true });
    // Independently recomputed from the saved inference and evaluation files.
    const again = recomputeFromFiles(out, { tasks: loadMazeTasks() });
    expect(again.discrepancies).toEqual([]);
    for (const m of ['P1', 'P2', 'P3', 'P4'] as const) {
      expect(again.by_mode[m]!.tsr).toBeCloseTo(s.metrics.tsr[m]!.value, 6);
      expect(again.by_mode[m]!.prr).toBeCloseTo(s.metrics.prr[m]!.value, 6);
      expect(again.by_mode[m]!.rc).toBeCloseTo(s.metrics.rc[m]!.value, 6);
    }
    expect(readLines(join(out, 'instances.jsonl'))).toHaveLength(50);
    // The header names the modes the numbers depend on; the terminal summary too.
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/Judge mode: `compat` · agent mode: `fc`/);
    expect(r.stdout).toMatch(/Maze · sim:oracle · judge compat · agent openai/);
  });

  it('sim:naive fails every perturbed run it hits, with prompt-based tool calling too', async () => {
    const out = tempDir('maze-naive');
    // In process (the kit's sessions and files, real HTTP to the simulator): main() is tested by the other cases.
    const run = await runSuite(mazeSuite, {
      TOOLGAUGE_MODEL: 'sim:naive',
      TOOLGAUGE_MAZE_ONLY: ONLY,
      TOOLGAUGE_MAZE_MODES: 'P0,P1,P4',
      TOOLGAUGE_MAZE_AGENT: 'prompt',
      TOOLGAUGE_OUT_DIR: out,
    });
    expect(run.finalized.harnessErrors).toBe(0);
    const s = readJson<Summary>(join(out, 'summary.json'));
    expect(s.metrics.tsr.P0!.value).toBe(1);
    expect(s.metrics.tsr.P1!.value).toBe(0);
    expect(s.metrics.tsr.P4!.value).toBe(0);
    expect(s.metrics.rc.P1!.value).toBe(1);
    const inference = readJson<{ messages: Array<{ role: string; content?: string; tool_calls?: unknown }> }>(
      join(out, 'c2', 'inferences', `${pick('c2', 1)[0]}_P0_inference.json`),
    );
    // Prompt mode: calls travel as text, results as <tool_response> user messages — no native tool_calls.
    expect(inference.messages.some((m) => m.role === 'assistant' && String(m.content).includes('<tool_call>'))).toBe(
      true,
    );
    expect(inference.messages.some((m) => m.role === 'user' && String(m.content).includes('<tool_response>'))).toBe(
      true,
    );
    expect(inference.messages.every((m) => !m.tool_calls)).toBe(true);
  });

  it('resumes from the evaluation files and refuses a policy without Maze behaviour', async () => {
    const out = tempDir('maze-resume');
    const only = pick('c3', 2).join(',');
    const first = await runSuite(mazeSuite, {
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_MAZE_ONLY: only,
      TOOLGAUGE_MAZE_MODES: 'P1',
      TOOLGAUGE_OUT_DIR: out,
    });
    expect(first.finalized.harnessErrors).toBe(0);
    // The kit's in-process resume (the session's checks of the directory, as under the command); the --resume flag
    // through main() is the same for every suite command (tests/e2e/eval-worker.test.ts).
    const again = await runSuite(mazeSuite, {
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_MAZE_ONLY: only,
      TOOLGAUGE_MAZE_MODES: 'P1,P3',
      TOOLGAUGE_OUT_DIR: out,
      TOOLGAUGE_RESUME: '1',
    });
    expect(again.finalized.harnessErrors).toBe(0);
    const metas = readLines<{ id: string; resumed?: boolean }>(join(out, 'instances.jsonl'));
    expect(
      metas
        .filter((m) => m.resumed)
        .map((m) => m.id)
        .sort(),
    ).toEqual(
      only
        .split(',')
        .map((id) => `${id}:P1`)
        .sort(),
    );
    expect(metas).toHaveLength(4);
    const bad = await inProcess(['maze', '--model', 'sim:coin?p=0.5'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no Maze behaviour/);
  });
});
