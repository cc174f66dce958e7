import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { systemErrorLine, UsageError } from '../core/errors.ts';
import { deferV8Flags } from '../core/late-v8-flags.ts';
import { holdThreadHeapV8Flags } from '../core/thread-heap-v8-flags.ts';
import { FileRefused } from '../core/nofollow.ts';
import { MODULE_EXT } from '../core/paths.ts';
import { redact } from '../core/redact.ts';
import type { CommandRunner, SuiteCommandModule } from '../kit/command.ts';
import type { FlagSpecs } from '../kit/flags/flags.ts';
import { CONFIG_FLAG, flagHelp } from '../kit/flags/help.ts';
import { isBuiltIn, suiteFolders, suiteUsageLines, type SuiteFolder } from '../kit/suite-folders.ts';

const HEAD = 'toolgauge — measure how well language models call tools, and why they fail';

// The commands that are not suites; each suite's lines come from its folder's suite.json (harness/kit/suite-folders.ts).
const OTHER_USAGE = `  toolgauge eval     FILE.eval.ts …       your own evals (describeEval from 'toolgauge')
  toolgauge parse    [--tier strict|lenient] [--format auto|NAME]   raw output on stdin → calls
  toolgauge parse    --jsonl FILE|- [--tier …]   lines {id, output, format?} → lines {id, format, calls, content, reasoning}
  toolgauge template check --template FILE [--json]
  toolgauge optimize --method gepa|mipro --topology T --model M --reflection-model M2 --budget N --out DIR   prompt optimization
  toolgauge report   DIR [DIR…] [--compare]
  toolgauge view     [DIR …] [--port N] [--export FILE.html]   results viewer in the browser (runs side by side)
  toolgauge sim      [--port N] [--policy NAME]
  toolgauge serve    --gguf FILE [--port N] [--parallel N] [--threads N] [--ctx N]   OpenAI-compatible server over a local GGUF
  toolgauge mcp serve maze --task ID [--mode P0…P4] [--transport stdio|http] [--port N] [--call-log FILE]   a Maze task's tools as an MCP server
  toolgauge mcp serve toolhop --row ID [--data FILE] [--sandbox pyodide|python] [--transport stdio|http]   a ToolHop row's tools as an MCP server
  toolgauge make-test-model OUT.gguf [--type f32|f16|q8_0] [--template hermes|llama3] [--seed N]   a random-weight GGUF for plumbing

Without --base-url (or OPENAI_BASE_URL) the built-in simulator answers, and every report says so. --model gguf:FILE
runs a local GGUF model with no server: the run starts \`toolgauge serve\` on it and stops it after.

Your own evals: a *.eval.ts file with describeEval, toolLoop and scorers from 'toolgauge' (one test per case;
summary.json with pass_rate and each scorer with CIs; gates, trials, resume, shards, report --compare), run with
\`toolgauge eval FILE\` or with Vitest and evalConfig from 'toolgauge/vitest-config'. Built-in and new suites are
SuiteDefinitions on the suite kit: see docs/ARCHITECTURE.md and docs/adding-a-suite.md.`;

/** `toolgauge --help`: the suites (one folder each), then the other commands. */
export function usageText(folders: readonly SuiteFolder[] = suiteFolders()): string {
  return `${HEAD}\n\n${suiteUsageLines(folders).join('\n')}\n${OTHER_USAGE}`;
}

type Command = { run: (argv: string[]) => Promise<number>; USAGE?: string; ACCEPTED_FLAGS?: FlagSpecs };

/** A command's `--help`: its usage, then every flag it accepts (with `--config`, which every such command reads). */
export function commandHelp(c: Command, fallback: string): string {
  const usage = c.USAGE ?? fallback;
  return c.ACCEPTED_FLAGS ? `${usage}\n\n${flagHelp({ ...c.ACCEPTED_FLAGS, ...CONFIG_FLAG })}` : usage;
}

/** What a suite folder's command is handed: the runner of suite commands, loaded with the first suite command run. */
const SUITE_RUNNER: CommandRunner = {
  runSuite: async (c, argv, env) => (await import('./suite-command.ts')).runSuiteCommand(c, argv, env),
};

// Static import specifiers: each command loads only when it is run, from source or from the CLI bundle.
const COMMANDS: Record<string, () => Promise<Command>> = {
  sim: () => import('./commands/sim.ts'),
  serve: () => import('./commands/serve.ts'),
  parse: () => import('./commands/parse.ts'),
  template: () => import('./commands/template.ts'),
  report: () => import('./commands/report.ts'),
  eval: () => import('./commands/eval.ts'),
  optimize: () => import('./commands/optimize.ts'),
  view: () => import('./commands/view.ts'),
  'make-test-model': () => import('./commands/make-test-model.ts'),
  mcp: () => import('./commands/mcp.ts'),
};

/**
 * A suite folder's command (its `command.ts`). The specifier is a template over the folder's name, so the CLI bundle
 * holds every `harness/<suite>/command.ts` (esbuild's glob import) and the built package rewrites its extension
 * (tsc); a folder outside this tree (a test's throwaway suite) loads by its path.
 */
function suiteCommand(f: SuiteFolder): () => Promise<Command> {
  return async () => {
    const mod = (
      isBuiltIn(f)
        ? await import(`../${f.name}/command.ts`)
        : await import(/* @vite-ignore */ pathToFileURL(join(f.dir, `command${MODULE_EXT}`)).href)
    ) as SuiteCommandModule;
    return {
      ...(mod.USAGE !== undefined ? { USAGE: mod.USAGE } : {}),
      ...(mod.ACCEPTED_FLAGS ? { ACCEPTED_FLAGS: mod.ACCEPTED_FLAGS } : {}),
      run: (argv) => mod.run(argv, SUITE_RUNNER),
    };
  };
}

/** Every command by name: the suite folders' and the others. */
export function commandTable(folders: readonly SuiteFolder[] = suiteFolders()): Record<string, () => Promise<Command>> {
  return { ...Object.fromEntries(folders.map((f) => [f.name, suiteCommand(f)])), ...COMMANDS };
}

/** What the command's own process hands the CLI (bin/toolgauge.mjs); an in-process caller of `main` hands nothing. */
export interface CliHost {
  /** V8 flags of this process to set once the run's modules are loaded (harness/core/late-v8-flags.ts). */
  lateV8Flags?: readonly string[];
  /** V8 flags the process was started with, reset since, to set before it starts a thread (thread-heap-v8-flags.ts). */
  threadHeapV8Flags?: readonly string[];
}

/** Dispatch; a UsageError (bad flag or value) prints one line and exits 2. `folders`: the suite registry (default: this tree's). */
export async function main(
  argv: string[],
  folders: readonly SuiteFolder[] = suiteFolders(),
  host: CliHost = {},
): Promise<number> {
  deferV8Flags(host.lateV8Flags ?? []);
  holdThreadHeapV8Flags(host.threadHeapV8Flags ?? []);
  const [name, ...rest] = argv;
  const USAGE = usageText(folders);
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE + '\n');
    return name ? 0 : 2;
  }
  const commands = commandTable(folders);
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!load) {
    process.stderr.write(
      `toolgauge: unknown command '${name}' (expected one of ${Object.keys(commands).join(', ')})\n`,
    );
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(await load(), USAGE) + '\n');
    return 0;
  }
  try {
    const { run } = await load();
    return await run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${redact(err.message)}\n`);
      return 2;
    }
    // A path toolgauge will not open or replace (a link, FIFO, device or folder where a file is expected): the
    // user's to fix, so one line naming it, not a stack.
    if (err instanceof FileRefused) {
      process.stderr.write(`${redact(`toolgauge ${name}: ${err.message}`)}\n`);
      return 2;
    }
    const line = systemErrorLine(err);
    process.stderr.write(redact(`toolgauge ${name}: ${line ?? (err as Error).stack ?? String(err)}`) + '\n');
    return 1;
  }
}
