import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { EnvSchema, parseEnv } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import {
  ALL_CATEGORIES,
  categoryOfFileName,
  checkKindOf,
  expandCategories,
  GROUPS,
  isCategory,
  type BfclCategory,
} from './categories.ts';
import type { ResultFormat } from './decode.ts';
import type { PythonBfclExecutor } from './executor.ts';
import { ensureBfclData } from './hf.ts';
import { findResultFiles, modelNameOf, readResultFile, rescoreResultDir, resultLine } from './rescore.ts';
import { withDirLocks } from '../kit/lock.ts';
import { assertOutDirWritable } from '../kit/out-dir-check.ts';
import { flagSchemas, parseFlags, type FlagSpecs } from '../kit/flags/flags.ts';
import type { CommandRunner } from '../kit/command.ts';
import { DEFAULT_CATEGORY, BFCL_ENV, type BfclSettings } from './settings.ts';
import { BFCL_METRIC_NAMES } from './metric-names.ts';
import { bfclAggregator } from './aggregator.ts';
import { finalizeSuite } from '../kit/finalize.ts';
import { checkGate, GateSyntaxError } from '../kit/gate.ts';
import { sealMeta, valueDigest } from '../kit/journal.ts';
import { rescoreHeader } from '../core/repro.ts';
import { escapeTerminal } from '../core/terminal.ts';
import { MODEL_FLAGS } from '../kit/flags/model-flags.ts';
import { applyConfig } from '../kit/flags/config-file.ts';

export const USAGE = `toolgauge bfcl [--category NAME|GROUP,…] [--mode fc|prompt] [--data DIR] [--bfcl-source DIR] [--limit N]
               [--only ID,…] [--revision REV] [--python PATH] [--model NAME] [--base-url URL] [--concurrency N]
               [--out-dir DIR] [--resume] [--gate EXPR] [--shard i/n] [-t PATTERN] [--print-report]
               [--config FILE.yaml] [--smoke]   (every flag as a key; docs/config.md)
toolgauge bfcl rescore --result-dir DIR --out-dir OUT [--format auto|fc|hermes|pythonic] [--data DIR]
               [--category NAME|GROUP,…] [--underscore-to-dot true|false] [--model-name NAME] [--bfcl-source DIR]
               [--revision REV] [--python PATH] [--gate EXPR]

  toolgauge bfcl runs a model on BFCL v4 (one test per case, named bfcl › <category> › <id>) through BFCL's own
  inference loop, scores every case exactly as BFCL's checker would, and reports BFCL's per-category accuracy and
  overall score (the leaderboard's formula, with 95% intervals) and, beside them, toolgauge's layers, attribution
  and the cases where the two verdicts part. Writes OUT/results.jsonl ({id, category, valid, error_type}),
  OUT/beyond.jsonl, OUT/result/BFCL_v4_<category>_result.json (BFCL's result format), traces/, summary.json and
  report.md (default OUT: results/bfcl/<model>/<mode>/).

  --category     BFCL categories or groups (${ALL_CATEGORIES.length} categories; groups ${Object.keys(GROUPS).join(', ')});
                 default ${DEFAULT_CATEGORY}. Memory and web search are out of scope.
  --mode         fc (default): native tool calls, names with "." sent with "_"; prompt: BFCL's system prompt and
                 [func(a=1)] output, decoded as BFCL decodes it
  --data         BFCL's data folder (BFCL_v4_<category>.json, possible_answer/, multi_turn_func_doc/); default: the
                 release downloaded once into the Hugging Face cache (offline with a cold cache: pass --data)
  --bfcl-source  BFCL's simulated API classes (gorilla_file_system.py …) for the multi_turn categories; default
                 TOOLGAUGE_BFCL_SOURCE or an installed bfcl_eval package
  --limit N      the first N cases of each category;  --only ID,…  these cases
  --python       the CPython that runs BFCL's classes (default /usr/bin/python3)

  rescore re-scores BFCL's own result files (BFCL_v4_<category>_result.json, lines {"id", "result"}) exactly as
  BFCL's checker would, and beside it toolgauge's layers and attribution. Writes OUT/results.jsonl ({id, category,
  valid, error_type}), OUT/beyond.jsonl, and, as a run does, OUT/instances.jsonl, summary.json (with the
  reproducibility header), report.md and charts; --gate EXPR decides the exit code as it does for a run.

  --format       how the results were produced: fc (lists of {name: arguments}), hermes (<tool_call> text, as
                 BFCL's Qwen FC handler reads it), pythonic (BFCL's prompt mode, [func(a=1)]); auto (default)
                 picks fc if any single-turn result is a list, hermes if any holds <tool_call>, else pythonic
  --underscore-to-dot   BFCL's model flag: tool names were sent with "." replaced by "_" (default true for fc)
  --model-name   the model's name in BFCL's result tree (default: the folder above the group folder)`;

const FLAGS: FlagSpecs = {
  'result-dir': { type: 'string', schema: z.string().min(1) },
  'out-dir': { type: 'string', schema: z.string().min(1) },
  format: { type: 'string', values: ['auto', 'fc', 'hermes', 'pythonic'] },
  data: { type: 'string', schema: z.string().min(1) },
  category: { type: 'string', multiple: true },
  'underscore-to-dot': { type: 'string', values: ['true', 'false'] },
  'model-name': { type: 'string', schema: z.string().min(1) },
  'bfcl-source': { type: 'string', schema: z.string().min(1) },
  revision: { type: 'string', schema: z.string().min(1) },
  python: { type: 'string', schema: z.string().min(1) },
  gate: { type: 'string', schema: flagSchemas.gate },
};

export const RUN_FLAGS: FlagSpecs = {
  category: { type: 'string', multiple: true, description: 'BFCL categories or groups, comma-separated' },
  mode: { type: 'string', values: ['fc', 'prompt'] },
  data: { type: 'string', schema: z.string().min(1), description: "BFCL's data folder" },
  'bfcl-source': {
    type: 'string',
    schema: z.string().min(1),
    description: "BFCL's simulated API classes (multi-turn)",
  },
  limit: { type: 'string', schema: flagSchemas.positiveInt, description: 'the first N cases of each category' },
  only: { type: 'string', schema: flagSchemas.idList },
  revision: {
    type: 'string',
    schema: z.string().min(1),
    description: 'the Hugging Face revision of the default download',
  },
  python: { type: 'string', schema: z.string().min(1), description: "the CPython that runs BFCL's classes" },
};

/** Every flag `toolgauge bfcl` accepts (its `--help` lists them all). */
export const ACCEPTED_FLAGS: FlagSpecs = { ...MODEL_FLAGS, ...RUN_FLAGS };

export async function run(argv: string[], runner: CommandRunner): Promise<number> {
  if (argv[0] === 'rescore') return rescore(argv.slice(1));
  return runner.runSuite<BfclSettings>(
    {
      command: 'bfcl',
      suite: (await import('./suite.ts')).bfclSuite,
      flags: RUN_FLAGS,
      env: { ...BFCL_ENV, python: 'TOOLGAUGE_PYTHON' },
      files: ['data', 'bfcl-source'],
      async validate(kc, settings) {
        if (kc.run.trials > 1)
          throw new UsageError(
            'toolgauge bfcl: --trials is not available for BFCL (one result per case, as BFCL scores it)',
          );
        const { needsExecutor, resolveBfclData, resolveBfclSource } = await import('./source.ts');
        try {
          // Download (or find in the cache) now: offline with a cold cache is one line and exit 2, not a failed run.
          await resolveBfclData(kc.run, settings);
          if (needsExecutor(settings)) await resolveBfclSource(kc.run, settings);
        } catch (err) {
          if (err instanceof UsageError) throw new UsageError(`toolgauge bfcl: ${err.message}`);
          throw err;
        }
        const treeSitter = settings.categories.filter((c) => c === 'simple_java' || c === 'simple_javascript');
        if (settings.mode === 'prompt' && treeSitter.length) {
          process.stderr.write(
            `toolgauge bfcl: warning: in prompt mode BFCL decodes ${treeSitter.join(' and ')} output with tree-sitter grammars toolgauge does not emulate; those cases are reported as undecided (counted invalid). Use --mode fc for them.\n`,
          );
        }
      },
    },
    applyConfig('bfcl', argv, ACCEPTED_FLAGS, {}, process.env),
  );
}

/** The format of a result folder, when not given: FC lists, Hermes text, or BFCL's prompt-mode text. */
function detectFormat(files: string[]): ResultFormat {
  let hermes = false;
  for (const f of files) {
    const category = categoryOfFileName(basename(f));
    if (!category || !isCategory(category) || checkKindOf(category) === 'multi_turn') continue;
    for (const { result } of readResultFile(f)) {
      if (result.t === 'list') return 'fc';
      if (result.t === 'str' && result.v.includes('<tool_call>')) hermes = true;
    }
  }
  return hermes ? 'hermes' : 'pythonic';
}

async function rescore(argv: string[]): Promise<number> {
  const { values } = parseFlags('bfcl rescore', argv, FLAGS);
  const resultDir = values['result-dir'] as string | undefined;
  const outDir = values['out-dir'] as string | undefined;
  if (!resultDir) throw new UsageError('toolgauge bfcl rescore: --result-dir DIR is required');
  if (!outDir) throw new UsageError('toolgauge bfcl rescore: --out-dir OUT is required');
  if (!existsSync(resultDir)) throw new UsageError(`toolgauge bfcl rescore: --result-dir ${resultDir} does not exist`);
  assertOutDirWritable('toolgauge bfcl rescore', outDir);
  const gate = values.gate as string | undefined;
  if (gate) {
    try {
      checkGate(gate, BFCL_METRIC_NAMES);
    } catch (err) {
      if (err instanceof GateSyntaxError) throw new UsageError(`toolgauge bfcl rescore: --gate: ${err.message}`);
      throw err;
    }
  }
  let categories: BfclCategory[] | undefined;
  if (values.category) {
    try {
      categories = expandCategories((values.category as string[]).flatMap((x) => x.split(',')));
    } catch (err) {
      throw new UsageError(`toolgauge bfcl rescore: --category ${(err as Error).message}`);
    }
  }
  const files = findResultFiles(resultDir);
  if (files.length === 0)
    throw new UsageError(`toolgauge bfcl rescore: no BFCL_v4_<category>_result.json under ${resultDir}`);
  const present = files
    .map((f) => categoryOfFileName(basename(f)))
    .filter((c): c is BfclCategory => !!c && isCategory(c) && (!categories || categories.includes(c)));
  const format =
    (values.format as string | undefined) && values.format !== 'auto'
      ? (values.format as ResultFormat)
      : detectFormat(files);

  let dataDir = values.data as string | undefined;
  if (!dataDir) {
    const got = await ensureBfclData(
      [...new Set(present)],
      { revision: values.revision as string | undefined },
      process.env,
    );
    dataDir = got.dir;
  }

  let executor: PythonBfclExecutor | undefined;
  if (present.some((c) => checkKindOf(c) === 'multi_turn')) {
    // Loaded only here: single-turn rescoring never starts BFCL's Python classes.
    const { findBfclSource, PythonBfclExecutor } = await import('./executor.ts');
    const source = await findBfclSource(values['bfcl-source'] as string | undefined, process.env);
    if (!source) {
      throw new UsageError(
        "toolgauge bfcl rescore: multi-turn results need BFCL's simulated API classes: pass --bfcl-source DIR (a BFCL checkout or bfcl_eval package), set TOOLGAUGE_BFCL_SOURCE, or pip install bfcl-eval",
      );
    }
    // The command is an edge: TOOLGAUGE_PYTHON and TOOLGAUGE_SANDBOX_CONFINE are parsed here, by the run settings' own
    // parsers, and passed as values.
    const sandbox = parseEnv(
      EnvSchema.pick({ TOOLGAUGE_PYTHON: true, TOOLGAUGE_SANDBOX_CONFINE: true, XDG_CACHE_HOME: true }),
      process.env,
    );
    const { defaultBytecodeRoot } = await import('./bytecode-cache.ts');
    executor = new PythonBfclExecutor({
      sourceDir: source,
      pythonPath: (values.python as string | undefined) || sandbox.TOOLGAUGE_PYTHON,
      confine: sandbox.TOOLGAUGE_SANDBOX_CONFINE,
      bytecodeRoot: defaultBytecodeRoot(sandbox.XDG_CACHE_HOME),
    });
  }
  const underscore = values['underscore-to-dot'] as string | undefined;
  const out = resolve(outDir);
  try {
    // OUT's files are rewritten as a run's are: under its lock (none while a run writes there), atomically, and never
    // through a link (the folders from OUT down checked too).
    return await withDirLocks([out], () =>
      rescoreInto(out, resultDir, dataDir, format, {
        executor,
        categories,
        underscore,
        modelName: values['model-name'] as string | undefined,
        shown: outDir,
        gate,
      }),
    );
  } catch (err) {
    if (['DirLocked', 'LinkRefused'].includes((err as Error).name))
      throw new UsageError(`toolgauge bfcl rescore: ${(err as Error).message}`);
    throw err;
  } finally {
    await executor?.dispose();
  }
}

async function rescoreInto(
  outDir: string,
  resultDir: string,
  dataDir: string,
  format: ResultFormat,
  o: {
    executor: PythonBfclExecutor | undefined;
    categories: BfclCategory[] | undefined;
    underscore: string | undefined;
    modelName: string | undefined;
    shown: string;
    gate: string | undefined;
  },
): Promise<number> {
  const startedAt = new Date();
  const report = await rescoreResultDir(resultDir, {
    format,
    dataDir,
    executor: o.executor,
    categories: o.categories,
    underscoreToDot: o.underscore === undefined ? undefined : o.underscore === 'true',
    modelName: o.modelName,
  });
  const results = report.records.map(resultLine);
  writeFileAtomic(join(outDir, 'results.jsonl'), results.map((r) => JSON.stringify(r) + '\n').join(''), outDir);
  writeFileAtomic(join(outDir, 'beyond.jsonl'), report.records.map((r) => JSON.stringify(r) + '\n').join(''), outDir);
  // The summary, report, charts, journal and gate are the kit's, as a run's: identical metas give identical files.
  const seed = 0;
  const metas = report.metas.map((m, k) =>
    sealMeta(m, { 'results.jsonl': valueDigest(results[k]), 'beyond.jsonl': valueDigest(report.records[k]) }),
  );
  const models = [...new Set(report.files.map((f) => o.modelName ?? modelNameOf(f.file, resultDir)))];
  const f = finalizeSuite('bfcl', bfclAggregator, metas, {
    header: rescoreHeader({
      model: models.join(', ') || 'unknown',
      source: resultDir,
      dataset: null,
      seed,
      startedAt,
      endedAt: new Date(),
    }),
    config: {
      rescore: true,
      result_dir: resultDir,
      data_dir: dataDir,
      format,
      // The suite's `mode`, which a comparison requires to agree: Hermes is one of BFCL's FC handlers.
      mode: format === 'pythonic' ? 'prompt' : 'fc',
      files: report.files.length,
      skipped: report.skipped,
      unknown_ids: report.unknownIds.length,
      missing: report.missing,
    },
    seed,
    gate: o.gate,
    outDir,
  });
  const valid = report.records.filter((r) => r.valid).length;
  process.stdout.write(
    `rescored ${report.records.length} BFCL results (${format}) from ${report.files.length} file(s): ${valid} valid; overall ${(100 * report.leaderboard.overall).toFixed(2)}% (BFCL's formula; ${ALL_CATEGORIES.length - report.leaderboard.missing.length}/${ALL_CATEGORIES.length} categories) → ${o.shown}\n`,
  );
  process.stdout.write(escapeTerminal(bfclAggregator.terminal(f.summary, outDir), '\n\t') + '\n');
  return f.gate && !f.gate.passed ? 1 : 0;
}
