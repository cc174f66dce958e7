import { escapeTerminal } from '../core/terminal.ts';
import { existsSync } from 'node:fs';
import { readRescoreInput } from '../core/nofollow.ts';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { DataError, UsageError } from '../core/errors.ts';
import { readJsonl, writeFileAtomic } from '../core/jsonl.ts';
import { FILES } from './output.ts';
import { rescoreDir, type Rescored } from './rescore.ts';
import { validSummary } from '../report/summary.ts';
import { finalizeSuite } from '../kit/finalize.ts';
import { withDirLocks } from '../kit/lock.ts';
import { assertOutDirWritable } from '../kit/out-dir-check.ts';
import { toolhopAggregator } from './aggregator.ts';
import type { ToolhopSettings } from './settings.ts';
import { toolhopSuite } from './suite.ts';
import { smokeDataset } from './smoke.ts';
import { resolveDataSource } from './source.ts';
import { flagSchemas, parseFlags, type FlagSpecs } from '../kit/flags/flags.ts';
import { checkSuiteCommand, type CommandRunner } from '../kit/command.ts';
import { applyConfig } from '../kit/flags/config-file.ts';
import { openRun } from '../launch/open-run.ts';
import { COMMS, TOPOLOGIES, type Comm, type Topology } from './settings.ts';
import { cellEnvOf, cellLabel, runSweep, sweepGrid, type SweepCell } from './sweep.ts';
import { MODEL_FLAGS, settingsSource } from '../kit/flags/model-flags.ts';
import { gridRefusal, resolveCell } from './grid.ts';

export const FLAGS: FlagSpecs = {
  data: { type: 'string', description: 'a ToolHop JSON/JSONL file, or hf[:REVISION]' },
  limit: { type: 'string', schema: flagSchemas.nonNegativeInt },
  offset: { type: 'string', schema: flagSchemas.nonNegativeInt },
  only: {
    type: 'string',
    multiple: true,
    list: true,
    description:
      "row ids: after one flag (the reference runner's --only 3 7), repeated, or comma-separated; ignores --limit",
  },
  batch: {
    type: 'boolean',
    description: "accepted with or without a number, for the reference runner's scripts; no effect",
  },
  preset: {
    type: 'string',
    values: ['reference', 'none'],
    description: "generation settings: the reference runner's (default) or only what is set",
  },
  'top-p': { type: 'string', schema: z.coerce.number().gt(0).max(1) },
  'repetition-penalty': { type: 'string', schema: z.coerce.number().positive() },
  thinking: {
    type: 'string',
    values: ['on', 'off'],
    description: 'chat_template_kwargs.enable_thinking (the reference: off)',
  },
  'final-max-tokens': {
    type: 'string',
    schema: flagSchemas.positiveInt,
    description: 'max_tokens of the final-answer call (the reference: 64)',
  },
  out: { type: 'string', description: 'also write the reference-style predictions file here' },
  'max-turns': { type: 'string', schema: flagSchemas.positiveInt },
  'tool-result-budget': { type: 'string', schema: flagSchemas.positiveInt },
  topology: { type: 'string', values: ['single', 'independent', 'decentralized', 'centralized', 'sequential'] },
  framework: {
    type: 'string',
    values: ['builtin', 'openai-agents', 'openai_agents'],
    description:
      "what the team's members run on: toolgauge's tool loop (default) or the OpenAI Agents SDK (decentralized only; openai_agents is the reference's spelling)",
  },
  agents: { type: 'string', schema: flagSchemas.positiveInt, description: 'team size (default per topology)' },
  rounds: {
    type: 'string',
    schema: flagSchemas.positiveInt,
    description: 'debate (decentralized) or delegation (centralized) rounds',
  },
  comm: {
    type: 'string',
    values: ['freeform', 'semi_structured', 'structured'],
    description: 'how team members report to each other',
  },
  prompts: {
    type: 'string',
    description: "role prompts folder (toolgauge's or the reference runner's <topology>/toolhop/<role>.txt layout)",
  },
  'team-temperature': {
    type: 'string',
    schema: z.coerce.number().min(0).max(2),
    description: 'sampling temperature of team members (they differ by seed)',
  },
  sandbox: {
    type: 'string',
    values: ['auto', 'pyodide', 'python'],
    description:
      'where tools run: auto (default: pyodide, CPython for rows that import numpy or sympy), pyodide or python',
  },
  python: { type: 'string', description: 'CPython for --sandbox python and auto (default /usr/bin/python3)' },
  'tool-timeout': { type: 'string', schema: flagSchemas.timeoutMs, description: 'ms per tool call' },
  'smoke-dataset': { type: 'boolean' },
  'allow-any-cell': {
    type: 'boolean',
    description: 'run a topology × agents × rounds × format cell that no runner of the reference runs',
  },
  revision: { type: 'string' },
  'ci-cluster': {
    type: 'string',
    values: ['none', 'domain', 'hops'],
    description: 'cluster bootstrap of accuracy by domain or hop count',
  },
};

const ENV = {
  data: 'TOOLHOP_DATA',
  limit: 'TOOLHOP_LIMIT',
  offset: 'TOOLHOP_OFFSET',
  only: 'TOOLHOP_ONLY',
  'max-turns': 'TOOLHOP_MAX_TURNS',
  'tool-result-budget': 'TOOLHOP_TOOL_RESULT_CHAR_BUDGET',
  topology: 'TOOLHOP_TOPOLOGY',
  framework: 'TOOLHOP_FRAMEWORK',
  agents: 'TOOLHOP_TEAM_SIZE',
  rounds: 'TOOLHOP_ROUNDS',
  comm: 'TOOLHOP_COMM',
  prompts: 'TOOLHOP_PROMPTS',
  'team-temperature': 'TOOLHOP_TEAM_TEMPERATURE',
  sandbox: 'TOOLGAUGE_SANDBOX',
  python: 'TOOLGAUGE_PYTHON',
  'tool-timeout': 'TOOLGAUGE_TOOL_TIMEOUT_MS',
  'smoke-dataset': 'TOOLHOP_SMOKE_DATASET',
  'allow-any-cell': 'TOOLHOP_ALLOW_ANY_CELL',
  revision: 'TOOLHOP_REVISION',
  'ci-cluster': 'TOOLGAUGE_CI_CLUSTER',
  out: 'TOOLHOP_OUT',
  preset: 'TOOLHOP_PRESET',
  'top-p': 'TOOLHOP_TOP_P',
  'repetition-penalty': 'TOOLHOP_REPETITION_PENALTY',
  thinking: 'TOOLHOP_THINKING',
  'final-max-tokens': 'TOOLHOP_FINAL_MAX_TOKENS',
};

export const USAGE = `toolgauge toolhop [--data FILE|hf[:REV]] [--limit N] [--offset N] [--only ID,ID] [--model NAME] [--base-url URL]
                  [--concurrency N] [--max-turns N] [--sandbox auto|pyodide|python] [--out-dir DIR] [--resume] [--gate EXPR]
                  [--topology single|independent|decentralized|centralized|sequential] [--agents N] [--rounds R]
                  [--framework builtin|openai-agents]
                  [--comm freeform|semi_structured|structured] [--prompts DIR] [--team-temperature T]
                  [--smoke-dataset] [--allow-any-cell] [--trials K] [--seed N] [--shard i/n] [-t PATTERN] [--print-report]
                  [--config FILE.yaml] [--smoke]   (every flag as a key; docs/config.md)
toolgauge toolhop rescore --out-dir DIR
toolgauge toolhop sweep [--topologies single,independent,…] [--agents 3,5] [--comms freeform,structured,…] [toolhop flags]`;

/**
 * The reference runner's `--batch` takes no value; toolgauge's `--batch [N]` (docs/toolhop.md) may have one: drop a
 * number after it.
 */
export function normalizeArgv(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]!);
    if (argv[i] === '--batch' && /^\d+$/.test(argv[i + 1] ?? '')) i++;
  }
  return out;
}

/** Every flag `toolgauge toolhop` accepts (its `--help` lists them all). */
export const ACCEPTED_FLAGS: FlagSpecs = { ...MODEL_FLAGS, ...FLAGS };

export async function run(argvIn: string[], runner: CommandRunner): Promise<number> {
  if (argvIn[0] === 'rescore') return rescore(argvIn.slice(1));
  if (argvIn[0] === 'sweep') return sweep(normalizeArgv(argvIn.slice(1)));
  const argv = applyConfig('toolhop', normalizeArgv(argvIn), ACCEPTED_FLAGS, {}, process.env);
  return runner.runSuite<ToolhopSettings>(
    {
      command: 'toolhop',
      suite: toolhopSuite,
      flags: FLAGS,
      env: ENV,
      files: ['data', 'prompts'],
      regularFiles: ['data'],
      // The rows' eval code makes model requests and sandbox calls (the sandbox is served from the CLI's process) and
      // starts no process: a thread of the CLI runs them, one process fewer (harness/vitest/prethread.ts).
      worker: 'thread',
      validate: (_kc, settings, values) => {
        checkCell(settings, 'toolhop');
        // The reference-style file is written after the last row: a folder it cannot be written in is said before the first.
        if (typeof values.out === 'string' && values.out)
          assertOutDirWritable('toolgauge toolhop: --out', dirname(resolve(values.out)));
      },
      async instead(kc, settings) {
        if (!settings.smokeDataset) return undefined;
        const src = await resolveDataSource(kc.run, settings).catch((err: unknown) => {
          throw err instanceof UsageError ? new UsageError(`toolgauge toolhop: ${err.message}`) : err;
        });
        const report = await smokeDataset(
          src.path,
          { ...settings, limit: settings.only ? undefined : settings.limit },
          kc.run.sandbox.pythonPath,
        );
        process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        return report.invalid_rows.length || report.source_parse_or_compile_errors ? 1 : 0;
      },
      after(_kc, _settings, outDir, values) {
        const out = values.out;
        if (typeof out === 'string' && out) writeReferencePredictions(outDir, out);
      },
    },
    argv,
  );
}

/** The reference runner's `--out` file: one `{idx, id, question, predicted_answer}` per row, ids as in the dataset. */
function writeReferencePredictions(outDir: string, file: string): void {
  const lines = readJsonl<Record<string, unknown>>(join(outDir, FILES.predictions)).map((p) => ({
    idx: p.idx ?? p.id,
    id: p.id,
    question: p.question,
    predicted_answer: p.predicted_answer,
  }));
  writeFileAtomic(file, lines.map((l) => JSON.stringify(l) + '\n').join(''));
}

const list = (allowed: readonly string[]) =>
  z.string().transform((v, ctx) => {
    const xs = v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const bad = xs.find((x) => !allowed.includes(x));
    if (bad) ctx.addIssue({ code: 'custom', message: `has '${bad}', not one of ${allowed.join('|')}` });
    return xs;
  });

/** A cell no runner of the reference runs is one line, exit 2, unless `--allow-any-cell` (grid.ts). */
function checkCell(s: ToolhopSettings, command: string): void {
  if (s.allowAnyCell) return;
  const refusal = gridRefusal(resolveCell(s), command);
  if (refusal) throw new UsageError(refusal);
}

const SWEEP_COMMAND = {
  command: 'toolhop sweep',
  suite: toolhopSuite,
  files: ['data', 'prompts'],
  regularFiles: ['data'],
} as const;

export interface SweepPlan {
  cells: SweepCell[];
  /** The environment every cell starts from (each sets its topology, size and format on top). */
  env: NodeJS.ProcessEnv;
  outDir: string;
  /** `--smoke`: one tool call from the endpoint before the first cell. */
  smoke: boolean;
}

/**
 * `toolhop sweep`'s flags → the cells and their environment, with the suite command's checks (checkSuiteCommand)
 * and the grid check run on every cell before the first one runs. Like the reference's sweep scripts, it sets the
 * dataset opt-in (TOOLHOP_ALLOW_DATASET_EXEC=1) unless the user set the variable.
 */
export function planSweep(argv: string[], baseEnv: NodeJS.ProcessEnv): SweepPlan {
  const { agents: _agents, comm: _comm, topology: _topology, ...rest } = FLAGS;
  const { values } = parseFlags('toolhop sweep', argv, {
    ...MODEL_FLAGS,
    ...rest,
    topologies: { type: 'string', list: true, schema: list(TOPOLOGIES), description: 'default: all five' },
    agents: {
      type: 'string',
      list: true,
      schema: z
        .string()
        .regex(/^\d+(,\d+)*$/, 'must be numbers like 3,5')
        .transform((v) => v.split(',').map(Number)),
      description: "default: each team's baseline size",
    },
    comms: { type: 'string', list: true, schema: list(COMMS), description: 'default: freeform' },
  });
  // The grid's own flags are not run settings: each cell sets topology, size and format itself.
  const { agents: _a, comm: _c, topology: _t, ...cellEnv } = ENV;
  const env = settingsSource(
    { ...baseEnv, TOOLHOP_ALLOW_DATASET_EXEC: baseEnv.TOOLHOP_ALLOW_DATASET_EXEC ?? '1' },
    { ...values, agents: undefined },
    cellEnv,
  );
  const cells = sweepGrid(
    (values.topologies as Topology[] | undefined) ?? [...TOPOLOGIES],
    values.agents as number[] | undefined,
    (values.comms as Comm[] | undefined) ?? ['freeform'],
  );
  for (const cell of cells) {
    const { settings } = checkSuiteCommand<ToolhopSettings>(SWEEP_COMMAND, values, cellEnvOf(env, cell, ''));
    checkCell(settings, `toolhop sweep (cell ${cellLabel(cell)})`);
  }
  const outDir = resolve((values['out-dir'] as string | undefined) ?? join('results', 'toolhop', 'sweep'));
  return { cells, env, outDir, smoke: Boolean(values.smoke) };
}

/**
 * `toolgauge toolhop sweep`: topology × team size × communication format on the same rows, each cell a ToolHop
 * run through the kit (in this process), then one paired comparison against `single`.
 */
async function sweep(argv: string[]): Promise<number> {
  const { cells, env, outDir, smoke } = planSweep(argv, process.env);
  const { plan } = checkSuiteCommand<ToolhopSettings>(SWEEP_COMMAND, {}, cellEnvOf(env, cells[0]!, ''));
  // The sweep's own checks through the launcher: its folder can be written, a real endpoint answers (and --smoke).
  // Each cell is a run of its own (runSuite), which opens what it needs (its simulator, its engine) itself.
  const checked = await openRun(plan, {
    command: 'toolgauge toolhop sweep',
    suites: [],
    outDir,
    smoke,
    noRequests: !plan.run.baseUrl,
  });
  await checked.close();
  process.stdout.write(`toolgauge toolhop sweep: ${cells.length} cells on the same rows → ${outDir}\n`);
  const r = await runSweep(cells, env, outDir, (line) => process.stdout.write(line + '\n'));
  process.stdout.write(`\n${r.markdown}\nwritten: ${join(outDir, 'sweep.md')}\n`);
  return r.cells.some((c) => (c.metrics.error_rate?.value ?? 0) > 0) ? 1 : 0;
}

async function rescore(argv: string[]): Promise<number> {
  const { values } = parseFlags('toolhop rescore', argv, { 'out-dir': { type: 'string', schema: z.string().min(1) } });
  const dir = values['out-dir'] as string | undefined;
  if (!dir) throw new UsageError('toolgauge toolhop rescore: --out-dir DIR is required');
  if (!existsSync(join(dir, FILES.predictions)))
    throw new UsageError(`toolgauge toolhop rescore: ${join(dir, FILES.predictions)} not found`);
  try {
    // Rescoring rewrites results.jsonl, the journal and the summary: not while a run writes there.
    await withDirLocks([resolve(dir)], () => rescoreLocked(dir));
  } catch (err) {
    if (err instanceof DataError || ['DirLocked', 'LinkRefused'].includes((err as Error).name))
      throw new UsageError(`toolgauge toolhop rescore: ${(err as Error).message}`);
    throw err;
  }
  return 0;
}

function rescoreLocked(dir: string): void {
  const r: Rescored = rescoreDir(dir);
  const correct = r.results.filter((x) => x.correct).length;
  process.stdout.write(
    `rescored ${r.results.length} predictions in ${dir}: ${correct} correct, ${r.changed} changed from the previous results.jsonl` +
      `${r.answerOnly ? `; ${r.answerOnly} scored from the predicted answer alone (no final message or transcript: the tool-result rule could not apply)` : ''}\n`,
  );
  const summaryPath = join(dir, FILES.summary);
  if (existsSync(summaryPath)) {
    const old = validSummary(JSON.parse(readRescoreInput(summaryPath)));
    const f = finalizeSuite('toolhop', toolhopAggregator, r.metas, {
      header: old.header,
      config: { ...old.config, rescored_at: new Date().toISOString() },
      seed: old.header.seed,
      outDir: dir,
    });
    process.stdout.write(escapeTerminal(toolhopAggregator.terminal(f.summary, dir), '\n\t') + '\n');
  }
}
