import { UsageError } from '../core/errors.ts';
import { redact } from '../core/redact.ts';

const USAGE = `toolgauge — measure how well language models call tools, and why they fail

  toolgauge toolhop  [flags]            multi-hop tool chains (ToolHop)          toolgauge toolhop --help
  toolgauge toolhop rescore --out-dir DIR
  toolgauge maze     [flags]            recovery from failing tools (TSR/PRR/RC)
  toolgauge probe    [flags]            single-call diagnosis and attribution
  toolgauge eval     FILE.eval.ts …       your own evals (describeEval from 'toolgauge')
  toolgauge bfcl     [--category NAME|GROUP] [--mode fc|prompt]   BFCL, scored as BFCL scores it   toolgauge bfcl --help
  toolgauge bfcl rescore --result-dir DIR --out-dir OUT   re-score BFCL's own result files
  toolgauge apibank  --data DIR [--level 1|2|3|all] [--topology T]   API-Bank, scored as its reference runner scores it
  toolgauge apibank rescore DIR --data DIR   re-score the reference runner's API-Bank output folder
  toolgauge parse    [--tier strict|lenient] [--format auto|NAME]   raw output on stdin → calls
  toolgauge parse    --jsonl FILE|- [--tier …]   lines {id, output, format?} → lines {id, format, calls, content, reasoning}
  toolgauge template check --template FILE [--json]
  toolgauge optimize --method gepa|mipro --topology T --model M --reflection-model M2 --budget N --out DIR   prompt optimization
  toolgauge report   DIR [DIR…] [--compare]
  toolgauge view     [DIR …] [--port N] [--export FILE.html]   results viewer in the browser (runs side by side)
  toolgauge sim      [--port N] [--policy NAME]
  toolgauge serve    --gguf FILE [--port N] [--parallel N] [--threads N] [--ctx N]   OpenAI-compatible server over a local GGUF
  toolgauge make-test-model OUT.gguf [--type f32|f16|q8_0] [--template hermes|llama3] [--seed N]   a random-weight GGUF for plumbing

Without --base-url (or OPENAI_BASE_URL) the built-in simulator answers, and every report says so. --model gguf:FILE
runs a local GGUF model with no server: the run starts \`toolgauge serve\` on it and stops it after.

Your own evals: a *.eval.ts file with describeEval, toolLoop and scorers from 'toolgauge' (one test per case;
summary.json with pass_rate and each scorer with CIs; gates, trials, resume, shards, report --compare), run with
\`toolgauge eval FILE\` or with Vitest and evalConfig from 'toolgauge/vitest-config'. Built-in and new suites are
SuiteDefinitions on the suite kit: see docs/ARCHITECTURE.md and CONTRIBUTING.md.`;

type Command = { run: (argv: string[]) => Promise<number>; USAGE?: string };

// Static import specifiers: each command loads only when it is run, from source or from the CLI bundle.
const COMMANDS: Record<string, () => Promise<Command>> = {
  toolhop: () => import('./commands/toolhop.ts'),
  sim: () => import('./commands/sim.ts'),
  serve: () => import('./commands/serve.ts'),
  parse: () => import('./commands/parse.ts'),
  template: () => import('./commands/template.ts'),
  report: () => import('./commands/report.ts'),
  maze: () => import('./commands/maze.ts'),
  probe: () => import('./commands/probe.ts'),
  eval: () => import('./commands/eval.ts'),
  bfcl: () => import('./commands/bfcl.ts'),
  apibank: () => import('./commands/apibank.ts'),
  optimize: () => import('./commands/optimize.ts'),
  view: () => import('./commands/view.ts'),
  'make-test-model': () => import('./commands/make-test-model.ts'),
};

/** Dispatch; a UsageError (bad flag or value) prints one line and exits 2. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE + '\n');
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`toolgauge: unknown command '${name}' (expected one of ${Object.keys(COMMANDS).join(', ')})\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(((await load()).USAGE ?? USAGE) + '\n');
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
    process.stderr.write(redact(`toolgauge ${name}: ${(err as Error).stack ?? String(err)}`) + '\n');
    return 1;
  }
}
