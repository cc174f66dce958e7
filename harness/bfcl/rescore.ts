// Rescoring BFCL's own result folders: every `BFCL_v4_<category>_result.json` under a directory (BFCL writes
// `result/<model>/<group>/…`), lines `{"id", "result", …}`, decoded and checked exactly as BFCL's eval_runner
// would, plus the beyond-BFCL view of each case. This is how a BFCL user moves to toolgauge without re-running a
// model. Reading is lossless (a result's `5.0` stays a float).
import { readdirSync, statSync } from 'node:fs';
import { readRescoreInput } from '../core/nofollow.ts';
import { basename, join } from 'node:path';
import { DataError } from '../core/errors.ts';
import type { PyValue } from '../core/pyliteral/index.ts';
import { aggregate, type Leaderboard } from './aggregate.ts';
import { beyondBfcl, type Deviation } from './beyond.ts';
import {
  ALL_CATEGORIES,
  categoryOfFileName,
  checkKindOf,
  idIndex,
  isCategory,
  type BfclCategory,
} from './categories.ts';
import { categoryCaseReader, type BfclCase } from './data.ts';
import type { ResultFormat } from './decode.ts';
import type { BfclExecutor } from './executor.ts';
import { dictGet, isStr } from './py.ts';
import { rescoredBfclMeta, rescoreRecordOf, type BfclMeta } from './meta.ts';
import { pyJsonLoads, PyJsonError } from '../core/pyliteral/pyjson.ts';
import { checkCases, type BfclVerdict } from './score.ts';
import { pushTo } from '../core/push-to.ts';

/** Cases per check batch: multi-turn cases of a batch go to the executor in two requests. */
const RESCORE_BATCH = 16;

export interface RescoreOptions {
  format: ResultFormat;
  /** BFCL's data folder (entries and possible answers). */
  dataDir: string;
  /** Needed when the folder holds multi-turn results. */
  executor?: BfclExecutor;
  /** BFCL's model-registry flag; default: true for `fc` (OpenAI-style names), false otherwise. */
  underscoreToDot?: boolean;
  /** BFCL names multi-turn instances after the model; default the result folder's model directory name. */
  modelName?: string;
  /** Only these categories. */
  categories?: readonly BfclCategory[];
  /** Compute the beyond-BFCL view too (default true). */
  beyond?: boolean;
  /** Called after each scored case (progress). */
  onRecord?: (r: RescoreRecord) => void;
}

/** One line of OUT/results.jsonl, plus what toolgauge adds beside BFCL's verdict. */
export interface RescoreRecord {
  id: string;
  category: string;
  valid: boolean;
  error_type: string;
  crash?: string;
  undecided?: string;
  /** toolgauge's verdict (lenient tier), the strict tier's, and the strict tier's attribution. */
  toolgauge?: { pass: boolean; pass_strict?: boolean; cause?: string | null; kind?: string; evidence?: string };
  deviation?: Deviation;
}

export interface ResultFile {
  file: string;
  category: BfclCategory;
  lines: number;
}

export interface RescoreReport {
  records: RescoreRecord[];
  /** The same results as the suite's metas, in the same order (the kit's summary, report and gate read them). */
  metas: BfclMeta[];
  files: ResultFile[];
  /** Result files not scored, and why (out-of-scope category, filtered out). */
  skipped: Array<{ file: string; reason: string }>;
  /** Result ids with no test entry in the data. */
  unknownIds: string[];
  /** Per category: entries in the data without a result line (BFCL refuses such folders without --partial-eval). */
  missing: Partial<Record<BfclCategory, number>>;
  leaderboard: Leaderboard;
}

/** Every BFCL result file under a directory (recursively), sorted by path. */
export function findResultFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/^BFCL_v4_.+_result\.json$/.test(name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The lines of one result file: `{id, result}` with the result read losslessly. */
export function readResultFile(file: string): Array<{ id: string; result: PyValue }> {
  const out: Array<{ id: string; result: PyValue }> = [];
  readRescoreInput(file)
    .split('\n')
    .forEach((text, k) => {
      if (!text.trim()) return;
      let v: PyValue;
      try {
        v = pyJsonLoads(text);
      } catch (err) {
        if (err instanceof PyJsonError) throw new DataError(file, k + 1, undefined, `not valid JSON: ${err.message}`);
        throw err;
      }
      const id = dictGet(v, 'id');
      const result = dictGet(v, 'result');
      if (!id || !isStr(id)) throw new DataError(file, k + 1, 'id', 'missing or not a string');
      if (result === undefined) throw new DataError(file, k + 1, 'result', 'missing');
      out.push({ id: id.v, result });
    });
  // load_file(..., sort_by_id=True): BFCL scores in id order.
  return out.sort((a, b) => idIndex(a.id) - idIndex(b.id));
}

/** BFCL's result tree is result/<model>/<group>/file: the model directory is the file's grandparent or parent. */
export function modelNameOf(file: string, root: string): string {
  const rel = file.slice(root.length).split(/[\\/]/).filter(Boolean);
  if (rel.length >= 3) return rel[rel.length - 3]!;
  if (rel.length === 2) return rel[0]!;
  return basename(root) || 'toolgauge';
}

export async function rescoreResultDir(dir: string, opts: RescoreOptions): Promise<RescoreReport> {
  const files: ResultFile[] = [];
  const skipped: RescoreReport['skipped'] = [];
  const records: RescoreRecord[] = [];
  const metas: BfclMeta[] = [];
  const unknownIds: string[] = [];
  const missing: RescoreReport['missing'] = {};
  const underscoreToDot = opts.underscoreToDot ?? opts.format === 'fc';
  const byCategory = new Map<BfclCategory, string[]>();
  for (const file of findResultFiles(dir)) {
    const category = categoryOfFileName(basename(file));
    if (!category || !isCategory(category)) {
      skipped.push({ file, reason: `category '${category ?? '?'}' is not scored by toolgauge` });
      continue;
    }
    if (opts.categories && !opts.categories.includes(category)) {
      skipped.push({ file, reason: 'category not selected' });
      continue;
    }
    pushTo(byCategory, category, file);
  }
  const order = ALL_CATEGORIES as readonly string[];
  for (const category of [...byCategory.keys()].sort((a, b) => order.indexOf(a) - order.indexOf(b))) {
    // The result lines first: only the data entries they name are parsed, a batch at a time (categoryCaseReader).
    const read = byCategory.get(category)!.map((file) => ({ file, lines: readResultFile(file) }));
    const wanted = new Set(read.flatMap(({ lines }) => lines.map((l) => l.id)));
    const cases = categoryCaseReader(opts.dataDir, category, wanted);
    const seen = new Set<string>();
    for (const { file, lines } of read) {
      files.push({ file, category, lines: lines.length });
      if (checkKindOf(category) === 'multi_turn' && !opts.executor) {
        throw new Error(`${file}: multi-turn results need an executor for BFCL's simulated APIs`);
      }
      const known: Array<{ id: string; result: PyValue }> = [];
      for (const line of lines) {
        if (!cases.has(line.id)) {
          unknownIds.push(line.id);
          continue;
        }
        seen.add(line.id);
        known.push(line);
      }
      // Checked a batch at a time (multi-turn cases share two executor requests per batch), recorded in order; the
      // next batch is sent to the executor before this one's beyond-BFCL view is computed, so the two overlap.
      const scoreOpts = {
        format: opts.format,
        underscoreToDot,
        executor: opts.executor,
        modelName: opts.modelName ?? modelNameOf(file, dir),
      };
      // Single-turn cases one at a time: nothing is gained by batching them, and a case's data then dies young (two
      // batches of 16 in hand outgrew V8's young generation, and were copied twice on their way to the old one).
      const size = checkKindOf(category) === 'multi_turn' ? RESCORE_BATCH : 1;
      const batchAt = (s: number): Array<{ c: BfclCase; result: PyValue }> | undefined =>
        s < known.length
          ? known.slice(s, s + size).map(({ id, result }) => ({ c: cases.read(id), result }))
          : undefined;
      const check = (batch: Array<{ c: BfclCase; result: PyValue }>) => {
        const p = checkCases(batch, scoreOpts);
        p.catch(() => undefined); // awaited below; a failure while the previous batch is recorded is not unhandled
        return p;
      };
      let batch = batchAt(0);
      let pending = batch && check(batch);
      for (let s = 0; batch && pending; s += size) {
        const verdicts: BfclVerdict[] = await pending;
        const next = batchAt(s + size);
        pending = next && check(next);
        batch.forEach(({ c, result }, k) => {
          const verdict = verdicts[k]!;
          const beyond =
            opts.beyond !== false && !verdict.undecided
              ? beyondBfcl(c, result, opts.format, verdict, { underscoreToDot })
              : undefined;
          const record = rescoreRecordOf(c, verdict, beyond);
          records.push(record);
          metas.push(rescoredBfclMeta(c, verdict, beyond));
          opts.onRecord?.(record);
        });
        batch = next;
      }
    }
    const absent = cases.ids.filter((id) => !seen.has(id)).length;
    if (absent) missing[category] = absent;
  }
  return { records, metas, files, skipped, unknownIds, missing, leaderboard: aggregate(records) };
}

/** The OUT/results.jsonl line: exactly BFCL's verdict fields. */
export function resultLine(r: RescoreRecord): { id: string; category: string; valid: boolean; error_type: string } {
  return { id: r.id, category: r.category, valid: r.valid, error_type: r.error_type };
}
