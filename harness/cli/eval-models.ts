import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../core/errors.ts';
import { sha256 } from '../core/hash.ts';
import { escapeTerminal } from '../core/terminal.ts';
import { refuseOneModelRun } from '../kit/one-model-run.ts';

/**
 * `toolgauge eval FILE --model a,b`: the eval files run once per model, one after another, each model into its own
 * folder inside each eval's output directory (`<eval dir>/<model folder>/`), then each eval's paired comparison of
 * every model with the first, written into the eval's directory by `report --compare`'s code (compare-saved.ts).
 * The exit code is the worst of the models' (docs/eval.md, "Several models").
 */

/** One finalized eval of a run: its name and output directory (the reporter's `onEnded`). */
export interface EndedEval {
  suite: string;
  outDir: string;
}

/** What one model's run of the eval files gave. */
export interface EvalRun {
  exitCode: number;
  ended: EndedEval[];
}

/** Runs the eval files once with `values` (the flags, `model` one name) into the folder `modelFolder`. */
export type RunOneModel = (values: Record<string, unknown>, modelFolder: string) => Promise<EvalRun>;

/** The files a comparison writes into the eval's directory: no model folder may take one of these names. */
const COMPARISON_FILES = ['comparison.md', 'comparison.json', 'comparison.svg'];

const ModelListSchema = z
  .array(z.string().trim().min(1, 'an empty model name (two commas, or one at an end)'))
  .superRefine((models, ctx) => {
    models.forEach((m, i) => {
      if (models.indexOf(m) !== i) ctx.addIssue({ code: 'custom', message: `'${m}' is named twice` });
    });
  });

/**
 * The models of a `--model a,b` run (the flag, a configuration file's `model: [a, b]`, or TOOLGAUGE_MODEL), or null
 * when the run names one model. A list with an empty or a repeated name is a one-line usage error.
 */
export function modelListOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv): string[] | null {
  const raw = (values.model as string | undefined) ?? env.TOOLGAUGE_MODEL;
  if (raw === undefined || !raw.includes(',')) return null;
  const r = ModelListSchema.safeParse(raw.split(','));
  if (!r.success) throw new UsageError(`toolgauge eval: --model '${raw}': ${r.error.issues[0]!.message}`);
  return r.data;
}

/**
 * Each model's folder name: the name with every run of characters other than letters, digits, `.`, `_` and `-`
 * made one `_` (no leading dot or dash, at most 60 characters). Names that would share a folder (also when they
 * differ only in case, for case-insensitive file systems) or take a comparison file's name get a short hash of
 * the model's name appended, so every folder is distinct and each model keeps its folder whatever the list's order.
 */
export function modelFolders(models: readonly string[]): string[] {
  const base = models.map(
    (m) =>
      m
        .replace(/[^A-Za-z0-9._-]+/g, '_')
        .replace(/^[.-]+/, '')
        .slice(0, 60) || 'model',
  );
  const count = new Map<string, number>();
  for (const b of base) count.set(b.toLowerCase(), (count.get(b.toLowerCase()) ?? 0) + 1);
  return base.map((b, i) =>
    count.get(b.toLowerCase())! > 1 || COMPARISON_FILES.includes(b.toLowerCase())
      ? `${b}-${sha256(models[i]!).slice(0, 8)}`
      : b,
  );
}

/** An eval's comparison: the path of its comparison.md, or why there is none. */
export interface EvalComparison {
  name: string;
  path: string | null;
  refused?: string;
}

/** The flags a several-model run refuses: each splits or merges one run, which a list of runs cannot share. */
const SINGLE_RUN_FLAGS = ['shard', 'blob-dir', 'merge-reports'];

/** Run the eval files once per model, then compare; prints what it wrote and returns the worst exit code. */
export async function runEachModel(
  models: readonly string[],
  values: Record<string, unknown>,
  runOne: RunOneModel,
): Promise<number> {
  for (const f of SINGLE_RUN_FLAGS)
    if (values[f] !== undefined)
      throw new UsageError(`toolgauge eval: --${f} runs one model; give --model one name (got ${models.length})`);
  // Each eval's folder in it, when it is their parent, is checked in the test worker, which knows the evals' names
  // (harness/vitest/describe-eval.ts).
  const outDir = values['out-dir'] as string | undefined;
  if (outDir) refuseOneModelRun(outDir, `--out-dir ${outDir}`);
  const json = Boolean(values.json);
  // With --json, stdout holds only the document.
  const say = (text: string) => (json ? process.stderr : process.stdout).write(`${escapeTerminal(text, '\n')}\n`);
  const folders = modelFolders(models);
  const runs: Array<EvalRun & { model: string }> = [];
  for (const [i, model] of models.entries()) {
    say(`toolgauge eval: model ${i + 1}/${models.length}: ${model} (folder ${folders[i]})`);
    // The exit code a run decides reaches this process as process.exitCode: the previous model's must not leak.
    process.exitCode = 0;
    runs.push({ model, ...(await runOne({ ...values, model }, folders[i]!)) });
    // A refused run (exit 2: a usage error, a folder refused) would be refused again for every model after it.
    if (runs.at(-1)!.exitCode === 2) break;
  }
  const comparisons = await compareModels(runs);
  for (const c of comparisons) {
    if (c.path) say(`${readFileSync(c.path, 'utf8').trimEnd()}\n\ncomparison of ${c.name}: ${c.path}`);
    else say(`toolgauge eval: no comparison of ${c.name}: ${c.refused}`);
  }
  const exitCode = Math.max(...runs.map((r) => r.exitCode));
  if (json) {
    const evals = runs.flatMap((r) => endedEvals(r.ended).map((e) => ({ ...e, model: r.model })));
    process.stdout.write(`${JSON.stringify({ evals, comparisons, exitCode })}\n`);
  }
  return exitCode;
}

/** Each eval's paired comparison of every model with the first, written beside the models' folders. */
export async function compareModels(runs: ReadonlyArray<EvalRun & { model: string }>): Promise<EvalComparison[]> {
  // Loaded here: the comparison reads every built-in suite's definition, which a one-model eval never needs.
  const { CompareRefused } = await import('../report/compare.ts');
  const { loadSavedRun, writeComparison } = await import('./compare-saved.ts');
  const names = [...new Set(runs.flatMap((r) => r.ended.map((e) => e.suite)))];
  return names.map((name) => {
    const dirs = runs.map((r) => r.ended.find((e) => e.suite === name)?.outDir);
    const missing = dirs.indexOf(undefined);
    if (missing >= 0)
      return { name, path: null, refused: `the run of ${runs[missing]!.model} wrote no summary of ${name}` };
    try {
      const saved = dirs.map((d) => loadSavedRun(d!, 'toolgauge eval'));
      const written = writeComparison(saved, { outDir: dirname(dirs[0]!), labels: runs.map((r) => r.model) });
      return { name, path: written.path };
    } catch (err) {
      if (err instanceof CompareRefused || err instanceof UsageError)
        return { name, path: null, refused: (err as Error).message };
      throw err;
    }
  });
}

/** Each finalized eval with the summary.json it wrote (the `--json` document's `evals`). */
export function endedEvals(ended: readonly EndedEval[]) {
  return ended.map((e) => ({
    name: e.suite,
    outDir: e.outDir,
    summary: JSON.parse(readFileSync(join(e.outDir, 'summary.json'), 'utf8')) as unknown,
  }));
}
