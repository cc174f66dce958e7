// A Maze run's tools over MCP: one (task, mode) MazeSession as a served world (harness/mcp-serve/), so any
// MCP-capable agent runs through the task with the perturbation injected at the server, and the built-in agents can
// reach the same tools over the wire (`--tool-transport mcp`).

import { connectMcpTools } from '../mcp-serve/client.ts';
import { serveHttp } from '../mcp-serve/http.ts';
import type { CallLog, ServedWorld } from '../mcp-serve/world.ts';
import type { ToolExecutor } from '../core/chat.ts';
import { UsageError } from '../core/errors.ts';
import type { MazeConfig } from './config.ts';
import { MazeSession } from './engine.ts';
import { selectRuns } from './selection.ts';
import { COMPLEXITIES, type MazeTask, type Mode } from './task.ts';
import { mazeTasksOf } from './tasks-of.ts';

/** The server's name in the MCP handshake: the task and mode it plays. */
export const mazeServerInfo = (task: MazeTask, mode: Mode) => ({
  name: `toolgauge-maze ${task.id} ${mode}`,
  version: '1',
});

/**
 * A MazeSession as a served world: its tools (only the task's, sorted by name), each call executed by the session
 * (which applies the mode to the victims), and the call's perturbation in the log. An injected error, invalid
 * arguments and an unknown tool are MCP errors (`isError`); an implicit corruption is, as in process, a normal result.
 */
export function mazeWorld(session: MazeSession): ServedWorld {
  return {
    tools: () => session.tools(),
    async call(c) {
      const r = session.executeSync(c);
      const e = session.trace().at(-1)!;
      return {
        content: r.content,
        isError: e.status === 'explicit_error' || e.status === 'tool_error',
        record: {
          task: session.task.id,
          mode: session.mode,
          perturbation: e.status,
          ...(e.error_kind ? { error_kind: e.error_kind } : {}),
          ...(e.victim ? { victim: e.victim } : {}),
        },
      };
    },
  };
}

export interface MazeOverMcp {
  /** The run's session, as the server executed it: its trace is what the judge reads. */
  session: MazeSession;
  /** The agent's tool executor: an MCP client of the run's server. */
  executor: ToolExecutor;
  close(): Promise<void>;
}

/**
 * One (task, mode) run's tools on an MCP server of its own (Streamable HTTP on 127.0.0.1, a free port), and a client
 * connected to it; `close` ends both. One server per run keeps Maze's per-run state (victims, history) apart.
 */
export async function mazeOverMcp(task: MazeTask, mode: Mode, log: CallLog = () => {}): Promise<MazeOverMcp> {
  const session = new MazeSession(task, mode);
  let served = false;
  const server = await serveHttp({
    info: mazeServerInfo(task, mode),
    newWorld: () => {
      // The run's one client; a second session would share the run's state, so it is refused.
      if (served) throw new Error(`the MCP server of ${task.id} ${mode} serves one client`);
      served = true;
      return mazeWorld(session);
    },
    log,
    port: 0,
  });
  let client;
  try {
    client = await connectMcpTools(server.url);
  } catch (err) {
    await server.close();
    throw err;
  }
  return {
    session,
    executor: client,
    async close() {
      await client.close().catch(() => {});
      await server.close();
    },
  };
}

/**
 * The one run `toolgauge mcp serve maze` plays: `id` is a task id (played under `mode`) or a run id with its mode
 * (`C1_task_001_P2`), among the configuration's tasks (built-in, `--cases`, `--tasks`, with `--tools`).
 */
export function mazeRunToServe(
  source: Pick<MazeConfig, 'casesDir' | 'toolPaths' | 'tasksFile'>,
  id: string,
  mode: Mode | undefined,
): { task: MazeTask; mode: Mode } {
  const tasks = mazeTasksOf({ ...source, categories: [...COMPLEXITIES] });
  const { runs, unknown } = selectRuns(tasks, [mode ?? 'P0'], [id]);
  if (unknown.length || runs.length !== 1)
    throw new UsageError(
      `toolgauge mcp serve maze: --task: no task ${id} (ids are like C1_task_001, or C1_task_001_P2 with its mode)`,
    );
  const run = runs[0]!;
  if (mode && run.mode !== mode)
    throw new UsageError(`toolgauge mcp serve maze: --task ${id} names mode ${run.mode}, --mode says ${mode}`);
  return run;
}
