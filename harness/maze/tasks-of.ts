// Which tasks and tools a Maze configuration runs: the built-in task graphs (or `--cases DIR`), or a user's task
// file (`--tasks`), against the built-in tools plus a user's library files (`--tools`). Every place that needs
// the tasks — the suite, the CLI's checks, the simulator — goes through here, so all see the same ones.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../core/hash.ts';
import type { MazeConfig } from './config.ts';
import { COMPLEXITIES, loadMazeTasks, type MazeTask } from './task.ts';
import { libraryFiles } from './tools/library.ts';
import { useToolLibrary } from './tools/index.ts';
import { loadUserTasks } from './user-tasks.ts';

type TaskSource = Pick<MazeConfig, 'casesDir' | 'categories' | 'toolPaths' | 'tasksFile'>;

/** Make the configuration's tools the active library, then load its tasks. */
export function mazeTasksOf(m: TaskSource): MazeTask[] {
  useToolLibrary(m.toolPaths);
  return m.tasksFile ? loadUserTasks(m.tasksFile, m.categories) : loadMazeTasks(m.casesDir, m.categories);
}

/** The dataset's identity: the task files and any user tool files (they change results too). */
export function mazeDatasetOf(m: TaskSource): { file: string; sha256: string; origin: string } {
  const taskFiles = m.tasksFile
    ? [m.tasksFile]
    : COMPLEXITIES.map((c) => join(m.casesDir, `${c}.json`)).filter(existsSync);
  const toolFiles = m.toolPaths.flatMap((p) => libraryFiles(p));
  const text = [...taskFiles, ...toolFiles].map((f) => readFileSync(f, 'utf8')).join('\n');
  const origin = m.tasksFile ? 'maze task graphs (a user task file)' : `maze task graphs (${taskFiles.length} files)`;
  return {
    file: m.tasksFile ?? m.casesDir,
    sha256: sha256(text),
    origin: toolFiles.length ? `${origin} with ${toolFiles.length} user tool file(s)` : origin,
  };
}
