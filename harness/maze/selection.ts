// Which (task, mode) runs a Maze invocation makes. `--only` / `--task-id` take task ids (`C1_task_001`: every
// selected mode of that task) or ToolMaze's run ids, task plus mode (`C1_task_001_P0`: exactly that run, whatever
// `--modes` says). An id that names no loaded task is reported, so the command can refuse it instead of running
// nothing.

import { MODES, type MazeTask, type Mode } from './task.ts';

export interface MazeRun {
  task: MazeTask;
  mode: Mode;
}

export interface MazeSelection {
  runs: MazeRun[];
  /** Ids that name no loaded task, in the order given. */
  unknown: string[];
}

const RUN_ID = new RegExp(`^(.+)_(${MODES.join('|')})$`);

/** The runs `ids` select among `tasks` (every task × `modes` when `ids` is undefined), in task then mode order. */
export function selectRuns(
  tasks: readonly MazeTask[],
  modes: readonly Mode[],
  ids: readonly string[] | undefined,
): MazeSelection {
  if (!ids) return { runs: tasks.flatMap((task) => modes.map((mode) => ({ task, mode }))), unknown: [] };
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const wanted = new Map<string, Set<Mode>>();
  const unknown: string[] = [];
  for (const id of ids) {
    if (byId.has(id)) {
      const s = wanted.get(id) ?? new Set<Mode>();
      for (const m of modes) s.add(m);
      wanted.set(id, s);
      continue;
    }
    const m = RUN_ID.exec(id);
    if (m && byId.has(m[1]!)) {
      const s = wanted.get(m[1]!) ?? new Set<Mode>();
      s.add(m[2] as Mode);
      wanted.set(m[1]!, s);
      continue;
    }
    unknown.push(id);
  }
  const runs = tasks.flatMap((task) =>
    MODES.filter((mode) => wanted.get(task.id)?.has(mode)).map((mode) => ({ task, mode })),
  );
  return { runs, unknown };
}
