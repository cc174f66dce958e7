import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, inject, test } from 'vitest';
import { readConfig } from '../core/config.ts';
import { prepareOutDir } from '../core/outdir.ts';
import { mazeOutDir, readMazeConfig } from '../maze/config.ts';
import { mazeMetaOf, type MazeMeta } from '../maze/meta.ts';
import { EvaluationFile, evaluationPath, InferenceFile, inferencePath, writeRunFiles } from '../maze/output.ts';
import { runMazeInstance } from '../maze/run-instance.ts';
import { loadMazeTasks, type Complexity } from '../maze/task.ts';
import './matchers.ts';
import { getRuntime } from './runtime.ts';

/**
 * One complexity's Maze tasks as tests: one concurrent test per (task, mode), named
 * `maze › <c> › <task_id> › <mode>`, writing the inference and evaluation files as each finishes.
 */
export function defineMazeSuite(complexity: Complexity): void {
  const cfg = readConfig();
  const maze = readMazeConfig();
  const runId = inject('toolgaugeRunId');
  const simUrl = inject('toolgaugeSimUrl');
  const outDir = mazeOutDir(cfg, maze);
  prepareOutDir(outDir, runId, cfg.resume);
  const selected = maze.categories.includes(complexity)
    ? loadMazeTasks(maze.casesDir, [complexity]).filter((t) => !maze.only || maze.only.includes(t.id))
    : [];

  describe(`maze ${complexity}`, () => {
    if (!selected.length || !maze.modes.length) test.skip(`maze › ${complexity} › (no runs selected)`, () => {});
    for (const task of selected) {
      for (const mode of maze.modes) {
        test.concurrent(`maze › ${complexity} › ${task.id} › ${mode}`, async ({ task: vt, annotate }) => {
          let meta = cfg.resume ? resumed(outDir, complexity, task.id, mode) : undefined;
          if (!meta) {
            const rt = getRuntime(simUrl);
            const r = await runMazeInstance(task, mode, { client: rt.client, model: cfg.model, maxTurns: maze.maxTurns, judgeMode: maze.judge, callStyle: maze.agent });
            writeRunFiles(outDir, r.inference, r.evaluation);
            meta = mazeMetaOf(r.evaluation, { error: r.error, turns: r.turns, toolCalls: r.toolCalls });
          }
          vt.meta.toolgauge = meta;
          await annotate(
            `${meta.error ? `error: ${meta.error}` : meta.pass ? 'pass' : `fail: ${meta.failure_reason}`} · hit=${meta.hit} · recovery=${meta.recovery} · RC=${meta.rc.toFixed(2)} · ${meta.tool_calls} tool calls`,
            meta.error ? 'error' : meta.pass ? 'pass' : 'fail',
            { path: evaluationPath(outDir, complexity, task.id, mode), contentType: 'application/json' },
          );
          expect(meta).toPassMaze();
        });
      }
    }
  });
}

function resumed(outDir: string, c: Complexity, taskId: string, mode: MazeMeta['mode']): MazeMeta | undefined {
  const ep = evaluationPath(outDir, c, taskId, mode);
  const ip = inferencePath(outDir, c, taskId, mode);
  if (!existsSync(ep) || !existsSync(ip)) return undefined;
  const ev = EvaluationFile.safeParse(JSON.parse(readFileSync(ep, 'utf8')));
  const inf = InferenceFile.safeParse(JSON.parse(readFileSync(ip, 'utf8')));
  if (!ev.success || !inf.success || inf.data.error) return undefined;
  return mazeMetaOf(ev.data, { error: null, turns: inf.data.turns, toolCalls: inf.data.trace.length, resumed: true });
}
