import { resolve } from 'node:path';
import { DataError, UsageError } from '../../core/errors.ts';
import { flagSchemas, parseFlags, type FlagSpecs } from '../../kit/flags/flags.ts';
import { flagHelp } from '../../kit/flags/help.ts';
import { MazeSession } from '../../maze/engine.ts';
import { mazeRunToServe, mazeServerInfo, mazeWorld } from '../../maze/mcp-world.ts';
import { DEFAULT_CASES_DIR, MODES, type Mode } from '../../maze/task.ts';
import { serveHttp } from '../../mcp-serve/http.ts';
import { serveStdio } from '../../mcp-serve/stdio.ts';
import { jsonlCallLog, type CallLog } from '../../mcp-serve/world.ts';

/** The flags of `toolgauge mcp serve maze` (its --help lists each). */
export const FLAGS: FlagSpecs = {
  task: { type: 'string', description: 'the task to serve: C1_task_001, or C1_task_001_P2 with its mode' },
  mode: { type: 'string', values: MODES, description: 'the perturbation the server injects: P0 (default) … P4' },
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
  cases: { type: 'string', description: 'a directory with c1.json … c4.json (default: the built-in tasks)' },
  tools: {
    type: 'string',
    description: 'tool library files or folders added to the built-in tools (docs/maze-tools.md)',
  },
  tasks: { type: 'string', description: 'a task file to take the task from instead of the built-in task graphs' },
};

export const USAGE = `toolgauge mcp serve maze --task ID [--mode P0|P1|P2|P3|P4] [--transport stdio|http] [--port N] [--call-log FILE]
                         [--cases DIR] [--tools PATH,…] [--tasks FILE]
  One Maze task's tools as an MCP server (the official SDK): tools/list gives the tools on the task's paths,
  tools/call runs them with the mode's perturbation injected at the server, and every call is logged (tool,
  arguments, result, perturbation, time). Each MCP session is a fresh run of the task. HTTP listens on 127.0.0.1
  only, at /mcp. docs/mcp.md.

${flagHelp(FLAGS)}`;

/** `toolgauge mcp serve maze …`: a Maze task's tools for any MCP-capable agent. */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('mcp', argv, FLAGS, true);
  const [verb, world, ...extra] = positionals;
  if (verb !== 'serve' || world === undefined)
    throw new UsageError('toolgauge mcp: expected `toolgauge mcp serve maze --task ID …` (see toolgauge mcp --help)');
  if (world !== 'maze') throw new UsageError(`toolgauge mcp serve: no tool world '${world}' (expected maze)`);
  if (extra.length) throw new UsageError(`toolgauge mcp serve maze: unexpected argument '${extra[0]}'`);
  const id = values.task as string | undefined;
  if (!id) throw new UsageError('toolgauge mcp serve maze: --task ID is required (e.g. C1_task_001)');
  const transport = (values.transport as 'stdio' | 'http' | undefined) ?? 'stdio';
  if (values.port !== undefined && transport !== 'http')
    throw new UsageError('toolgauge mcp serve maze: --port needs --transport http');
  const list = (s: unknown) =>
    String(s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
      .map((p) => resolve(p));
  let served;
  try {
    served = mazeRunToServe(
      {
        casesDir: values.cases ? resolve(String(values.cases)) : DEFAULT_CASES_DIR,
        toolPaths: list(values.tools),
        tasksFile: values.tasks ? resolve(String(values.tasks)) : undefined,
      },
      id,
      values.mode as Mode | undefined,
    );
  } catch (err) {
    if (err instanceof DataError) throw new UsageError(`toolgauge mcp serve maze: ${err.message}`);
    throw err;
  }
  const { task, mode } = served;
  const log: CallLog = values['call-log']
    ? jsonlCallLog(resolve(String(values['call-log'])))
    : (line) => process.stderr.write(`${JSON.stringify(line)}\n`);
  const info = mazeServerInfo(task, mode);
  const newWorld = () => mazeWorld(new MazeSession(task, mode));
  if (transport === 'stdio') {
    // stdout carries the protocol: anything said goes to stderr.
    process.stderr.write(`toolgauge mcp serve maze: ${task.id} ${mode} on stdio\n`);
    await serveStdio(newWorld(), info, log);
    return 0;
  }
  const server = await serveHttp({ info, newWorld, log, port: (values.port as number | undefined) ?? 0 }).catch(
    (err: Error) => {
      throw new UsageError(`toolgauge mcp serve maze: cannot listen: ${err.message}`);
    },
  );
  process.stdout.write(`toolgauge mcp serve maze: ${task.id} ${mode} listening on ${server.url}; Ctrl-C to stop\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}
