// `apibank rescore`: the reference runner's output folder (results.jsonl, or predictions.jsonl) scored again by
// toolgauge's scorer, from each row's `predicted_answer` (the extracted call, which is what the reference scores).
import { existsSync } from 'node:fs';
import { readRescoreInput } from '../core/nofollow.ts';
import { join } from 'node:path';
import { z } from 'zod';
import { DataError, dataErrorFromZod } from '../core/errors.ts';
import { wilsonInterval } from '../stats/index.ts';
import type { ScoreOptions } from './env/index.ts';
import { scoreExtracted } from './scoring.ts';
import { type ApibankData, LEVELS, parseCombinedId, taskOfManifestId, type Level } from './tasks.ts';

const Row = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    level: z.union([z.string(), z.number()]).transform(String).optional(),
    predicted_answer: z.string().nullable().optional(),
    correct: z.boolean().nullable().optional(),
  })
  .passthrough();

export interface RescoredRow {
  id: string;
  level: Level;
  predicted_answer: string;
  correct: boolean | null;
  stage: string;
  error: string | null;
  /** The folder's own verdict, when it had one. */
  previous: boolean | null;
}

export interface RescoreResult {
  file: string;
  rows: RescoredRow[];
  summary: Record<string, unknown>;
}

/** Reads DIR/results.jsonl (else DIR/predictions.jsonl) and scores every row; a bad line is a one-line DataError. */
export function rescoreFolder(dir: string, data: ApibankData, opts: (level: Level) => ScoreOptions): RescoreResult {
  const file = [join(dir, 'results.jsonl'), join(dir, 'predictions.jsonl')].find(existsSync);
  if (!file) throw new DataError(dir, undefined, undefined, 'has neither results.jsonl nor predictions.jsonl');
  const rows: RescoredRow[] = [];
  readRescoreInput(file)
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (err) {
        throw new DataError(file, i + 1, undefined, `not JSON: ${(err as Error).message}`);
      }
      const r = Row.safeParse(raw);
      if (!r.success) throw dataErrorFromZod(file, i + 1, r.error);
      const [sub] = parseCombinedId(r.data.id);
      const level = (sub || r.data.level) as Level | undefined;
      if (!level || !LEVELS.includes(level))
        throw new DataError(file, i + 1, 'level', `cannot tell the level of '${r.data.id}'`);
      const task = taskOfManifestId(data, r.data.id.startsWith('level-') && sub ? 'all' : level, r.data.id);
      if (!task) throw new DataError(file, i + 1, 'id', `'${r.data.id}' names no API-Bank task`);
      const predicted = r.data.predicted_answer ?? '';
      const v = scoreExtracted(task, predicted, opts(task.level));
      rows.push({
        id: r.data.id,
        level,
        predicted_answer: predicted,
        correct: v.correct,
        stage: v.stage,
        error: v.error,
        previous: r.data.correct ?? null,
      });
    });
  return { file, rows, summary: summarize(rows) };
}

function rate(rows: readonly RescoredRow[]) {
  const determined = rows.filter((r) => r.correct !== null);
  const k = determined.filter((r) => r.correct).length;
  const ci = determined.length ? wilsonInterval(k, determined.length, 0.95) : null;
  return {
    n: rows.length,
    correct: k,
    wrong: determined.length - k,
    undetermined: rows.length - determined.length,
    accuracy: determined.length ? k / determined.length : null,
    ci95: ci,
    accuracy_undetermined_wrong: rows.length ? k / rows.length : null,
  };
}

export function summarize(rows: readonly RescoredRow[]): Record<string, unknown> {
  const compared = rows.filter((r) => r.previous !== null && r.correct !== null);
  return {
    ...rate(rows),
    by_level: Object.fromEntries(
      LEVELS.filter((l) => rows.some((r) => r.level === l)).map((l) => [
        `L${l}`,
        rate(rows.filter((r) => r.level === l)),
      ]),
    ),
    agreement_with_folder: { compared: compared.length, same: compared.filter((r) => r.previous === r.correct).length },
  };
}
