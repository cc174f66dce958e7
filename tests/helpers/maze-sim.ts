import { mazeSimResponder } from '../../harness/maze/sim-responder.ts';
import { mazeTasksOf } from '../../harness/maze/tasks-of.ts';
import { COMPLEXITIES, DEFAULT_CASES_DIR } from '../../harness/maze/task.ts';
import type { Responder } from '../../harness/sim/server.ts';

/** The simulator's Maze responder over every bundled task (all complexities, no user tools or tasks file). */
export function bundledMazeResponder(): Responder {
  return mazeSimResponder(
    () =>
      mazeTasksOf({ casesDir: DEFAULT_CASES_DIR, categories: [...COMPLEXITIES], toolPaths: [], tasksFile: undefined }),
    DEFAULT_CASES_DIR,
  );
}
