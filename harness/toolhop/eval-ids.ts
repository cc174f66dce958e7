import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DataError, firstZodIssue } from '../core/errors.ts';
import { fromRoot } from '../core/paths.ts';

/**
 * ToolHop's reported eval set, as a data file: the reference's `benchmarks/toolhop/toolhop_eval_ids.json` (MIT,
 * MAS-PromptBench contributors; see cases/toolhop/README.md), shipped unchanged in `cases/toolhop/`. The optimizer
 * keeps these rows out of its splits; docs/toolhop-reference.md says where else they matter.
 */
export const TOOLHOP_EVAL_IDS_FILE = fromRoot('cases', 'toolhop', 'toolhop_eval_ids.json');

const EvalIdsFile = z.object({
  dataset: z.literal('toolhop'),
  ids: z.array(z.union([z.number().int().nonnegative(), z.string().min(1)])).min(1),
});

/** The ids of an eval-ids file, as row-id strings; a bad file is one DataError naming the file and the field. */
export function readEvalIds(file: string): ReadonlySet<string> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new DataError(file, undefined, undefined, (err as Error).message);
  }
  const parsed = EvalIdsFile.safeParse(raw);
  if (!parsed.success) {
    const { field, message } = firstZodIssue(parsed.error);
    throw new DataError(file, undefined, field || '(top level)', message);
  }
  return new Set(parsed.data.ids.map(String));
}

let cached: ReadonlySet<string> | undefined;
/** The bundled eval ids (read once). */
export function toolhopEvalIds(): ReadonlySet<string> {
  cached ??= readEvalIds(TOOLHOP_EVAL_IDS_FILE);
  return cached;
}
