import { resolve } from 'node:path';
import { DataError, UsageError } from '../../core/errors.ts';
import { flagSchemas, parseFlags, type FlagSpecs } from '../../kit/flags/flags.ts';
import { flagHelp } from '../../kit/flags/help.ts';
import { MazeSession } from '../../maze/engine.ts';
import { mazeRunToServe, mazeServerInfo, mazeWorld } from '../../maze/mcp-world.ts';
import { DEFAULT_CASES_DIR, MODES, type Mode } from '../../maze/task.ts';
import { serveHttp } from '../../mcp-serve/http.ts';
import type { ServerInfo } from '../../mcp-serve/server.ts';
import { serveStdio } from '../../mcp-serve/stdio.ts';
import { jsonlCallLog, type CallLog, type ServedWorld } from '../../mcp-serve/world.ts';
import { assertDatasetExecAllowed, createSandbox, type SandboxBackend } from '../../sandbox/index.ts';
import { BUNDLED_SAMPLE } from '../../toolhop/dataset.ts';
import { toolhopRowToServe, toolhopWorld } from '../../toolhop/mcp-world.ts';

/** The flags every served world takes. */
const SERVE_FLAGS: FlagSpecs = {
  transport: {
    type: 'string',
    values: ['stdio', 'http'],
    description: 'stdio (default), or Streamable HTTP on 127.0.0.1',
  },
  port: {
    type: 'string',
    schema: flagSchemas.nonNegativeInt,
    description: 'the HTTP port (default 0: a free one, printed)',
  },
  'call-log': { type: 'string', description: 'append every call to this JSONL file (default: JSON lines on stderr)' },
};

const MAZE_FLAGS: FlagSpecs = {
  task: { type: 'string', description: 'maze: the task to serve: C1_task_001, or C1_task_001_P2 with its mode' },
  mode: { type: 'string', values: MODES, description: 'maze: the perturbation the server injects: P0 (default) … P4' },
  cases: { type: 'string', description: 'maze: a directory with c1.json … c4.json (default: the built-in tasks)' },
  tools: { type: 'string', description: 'maze: tool library files or folders added to the built-in tools' },
  tasks: { type: 'string', description: 'maze: a task file to take the task from instead of the built-in tasks' },
};

const TOOLHOP_FLAGS: FlagSpecs = {
  row: { type: 'string', description: 'toolhop: the row whose tools to serve (its id)' },
  data: { type: 'string', description: 'toolhop: the ToolHop file, JSON or JSONL (default: the bundled sample)' },
  sandbox: {
    type: 'string',
    values: ['pyodide', 'python'],
    description: 'toolhop: the sandbox that runs the tools (default pyodide)',
  },
};

/** Every flag of `toolgauge mcp serve maze|toolhop` (its --help lists each). */
export const FLAGS: FlagSpecs = { ...SERVE_FLAGS, ...MAZE_FLAGS, ...TOOLHOP_FLAGS };

export const USAGE = `toolgauge mcp serve maze --task ID [--mode P0|P1|P2|P3|P4] [--transport stdio|http] [--port N] [--call-log FILE]
                         [--cases DIR] [--tools PATH,…] [--tasks FILE]
toolgauge mcp serve toolhop --row ID [--data FILE] [--sandbox pyodide|python] [--transport stdio|http] [--port N] [--call-log FILE]
  A tool world as an MCP server (the official SDK), every call logged as a JSON line (tool, arguments, result, time…).
  maze: one task's tools (those on its paths), the mode's perturbation injected at the server; each MCP session is
  a fresh run of the task. toolhop: one row's Python tools, run in the sandbox as a ToolHop run runs them (needs
  TOOLHOP_ALLOW_DATASET_EXEC=1). HTTP listens on 127.0.0.1 only, at /mcp. docs/mcp.md.

${flagHelp(FLAGS)}`;

/** What one `mcp serve` serves: a name for the banner, the handshake's server info, a world per session. */
interface Served {
  label: string;
  info: ServerInfo;
  newWorld: () => ServedWorld;
  close?: () => Promise<void>;
}

/** `toolgauge mcp serve maze|toolhop …`: a tool world for any MCP-capable agent. */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('mcp', argv, FLAGS, true);
  const [verb, world, ...extra] = positionals;
  if (verb !== 'serve' || world === undefined)
    throw new UsageError('toolgauge mcp: expected `toolgauge mcp serve maze|toolhop …` (see toolgauge mcp --help)');
  if (world !== 'maze' && world !== 'toolhop')
    throw new UsageError(`toolgauge mcp serve: no tool world '${world}' (expected maze or toolhop)`);
  if (extra.length) throw new UsageError(`toolgauge mcp serve ${world}: unexpected argument '${extra[0]}'`);
  const foreign = Object.keys(world === 'maze' ? TOOLHOP_FLAGS : MAZE_FLAGS).find((f) => values[f] !== undefined);
  if (foreign) throw new UsageError(`toolgauge mcp serve ${world}: --${foreign} is not a flag of ${world}`);
  const transport = (values.transport as 'stdio' | 'http' | undefined) ?? 'stdio';
  if (values.port !== undefined && transport !== 'http')
    throw new UsageError(`toolgauge mcp serve ${world}: --port needs --transport http`);
  const served = world === 'maze' ? mazeServed(values) : toolhopServed(values);
  const log: CallLog = values['call-log']
    ? jsonlCallLog(resolve(String(values['call-log'])))
    : (line) => process.stderr.write(`${JSON.stringify(line)}\n`);
  try {
    await serve(served, transport, (values.port as number | undefined) ?? 0, log);
  } finally {
    await served.close?.();
  }
  return 0;
}

async function serve(s: Served, transport: 'stdio' | 'http', port: number, log: CallLog): Promise<void> {
  if (transport === 'stdio') {
    // stdout carries the protocol: anything said goes to stderr.
    process.stderr.write(`toolgauge mcp serve ${s.label} on stdio\n`);
    await serveStdio(s.newWorld(), s.info, log);
    return;
  }
  const server = await serveHttp({ info: s.info, newWorld: s.newWorld, log, port }).catch((err: Error) => {
    throw new UsageError(`toolgauge mcp serve: cannot listen on 127.0.0.1:${port}: ${err.message}`);
  });
  process.stdout.write(`toolgauge mcp serve ${s.label} listening on ${server.url}; Ctrl-C to stop\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
}

const paths = (s: unknown) =>
  String(s ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((p) => resolve(p));

function mazeServed(values: Record<string, unknown>): Served {
  const id = values.task as string | undefined;
  if (!id) throw new UsageError('toolgauge mcp serve maze: --task ID is required (e.g. C1_task_001)');
  let picked;
  try {
    picked = mazeRunToServe(
      {
        casesDir: values.cases ? resolve(String(values.cases)) : DEFAULT_CASES_DIR,
        toolPaths: paths(values.tools),
        tasksFile: values.tasks ? resolve(String(values.tasks)) : undefined,
      },
      id,
      values.mode as Mode | undefined,
    );
  } catch (err) {
    if (err instanceof DataError) throw new UsageError(`toolgauge mcp serve maze: ${err.message}`);
    throw err;
  }
  const { task, mode } = picked;
  return {
    label: `maze: ${task.id} ${mode}`,
    info: mazeServerInfo(task, mode),
    newWorld: () => mazeWorld(new MazeSession(task, mode)),
  };
}

/** ToolHop's tool results are cut to the suite's default budget (TOOLHOP_TOOL_RESULT_CHAR_BUDGET), as in a run. */
const TOOLHOP_CHAR_BUDGET = 6000;

function toolhopServed(values: Record<string, unknown>): Served {
  const id = values.row as string | undefined;
  if (!id) throw new UsageError('toolgauge mcp serve toolhop: --row ID is required');
  try {
    assertDatasetExecAllowed(process.env);
  } catch (err) {
    throw new UsageError(`toolgauge mcp serve toolhop: ${(err as Error).message}`);
  }
  const file = values.data ? resolve(String(values.data)) : BUNDLED_SAMPLE;
  let row;
  try {
    row = toolhopRowToServe(file, id);
  } catch (err) {
    if (err instanceof DataError) throw new UsageError(`toolgauge mcp serve toolhop: ${err.message}`);
    throw err;
  }
  const sandbox = createSandbox({ backend: (values.sandbox as SandboxBackend | undefined) ?? 'pyodide', poolSize: 1 });
  return {
    label: `toolhop: row ${id}`,
    info: { name: `toolgauge-toolhop row ${id}`, version: '1' },
    newWorld: () => toolhopWorld(row, sandbox, TOOLHOP_CHAR_BUDGET),
    close: () => sandbox.close(),
  };
}
