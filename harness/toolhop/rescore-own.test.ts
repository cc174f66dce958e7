import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendJsonl } from '../core/jsonl.ts';
import { rewriteRecords } from '../kit/records.ts';
import { BUNDLED_SAMPLE, loadDatasetFile } from './dataset.ts';
import { FILES } from './output.ts';
import { predictionLine, resultLine } from './reference-files.ts';
import { rescoreDir } from './rescore.ts';
import { instanceRecords } from './run-instance.ts';
import { aggregateToolhop } from './aggregate.ts';

// A folder as toolgauge's own run writes it (its line builders and writer), then rescored: the lines keep their
// key order and float fields, and the metas keep what the run spent.

const rows = loadDatasetFile(BUNDLED_SAMPLE)
  .entries.flatMap((e) => (e.ok ? [e.row] : []))
  .slice(0, 4);
const dir = mkdtempSync(join(tmpdir(), 'tg-rescore-own-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Row i answers right except row 1; row i spent 1000·(i+1) tokens and 2.0, 1.2, 0.0, 3.0 seconds. */
const WALL_MS = [2000, 1234, 0, 2960];
const outcomes = rows.map((row, i) =>
  instanceRecords(row, 0, new Date(0), {
    messages: [
      { role: 'system', content: 's' },
      { role: 'user', content: row.question },
      { role: 'assistant', content: `<answer>${i === 1 ? 'nope' : row.answer}</answer>` },
    ],
    answered: true,
    turns: 1,
    toolCalls: 0,
    usage: { prompt_tokens: 900 * (i + 1), completion_tokens: 100 * (i + 1), total_tokens: 1000 * (i + 1) },
    wallMs: WALL_MS[i]!,
    forcedFinal: false,
    exhausted: false,
    toolExecutions: [],
    modelCalls: [],
  }),
);
for (const [i, o] of outcomes.entries()) {
  const c = { rawId: rows[i]!.id, model: 'sim:oracle', style: 'single_langgraph', agents: 1, modelCalls: 1 };
  appendJsonl(join(dir, FILES.predictions), predictionLine(o, c));
  appendJsonl(join(dir, FILES.results), resultLine(o, c));
}
const resultsText = () => readFileSync(join(dir, FILES.results), 'utf8').trim().split('\n');

describe('toolgauge results lines', () => {
  it('write solve_s as a float, as Python does (2.0, 1.2, 0.0, 3.0)', () => {
    expect(resultsText().map((l) => /"solve_s":([^,]+),/.exec(l)?.[1])).toEqual(['2.0', '1.2', '0.0', '3.0']);
  });

  it('are rewritten as they were written (the run end and a resume keep each line whole)', () => {
    const file = join(dir, 'rewrite.jsonl');
    const lines = ['{"id":"b","trial":0,"solve_s":2.0,"a":1}', '{"z":0,"id":"a","solve_s":1e-7}'];
    writeFileSync(file, lines.join('\n') + '\n');
    rewriteRecords(
      file,
      () => true,
      (k) => (k.startsWith('a') ? 0 : 1),
    );
    expect(readFileSync(file, 'utf8')).toBe(`${lines[1]}\n${lines[0]}\n`);
  });

  it('rescore keeps the key order and the floats of every line, and the tokens per correct answer of the run', () => {
    const before = resultsText().map((l) => Object.keys(JSON.parse(l) as object));
    const r = rescoreDir(dir);
    const after = resultsText();
    expect(after.map((l) => Object.keys(JSON.parse(l) as object))).toEqual(before);
    expect(after.map((l) => /"solve_s":([^,]+),/.exec(l)?.[1])).toEqual(['2.0', '1.2', '0.0', '3.0']);
    // Tokens over correct answers, pooled: (1000 + 2000 + 3000 + 4000) / 3 correct rows.
    expect(r.results.map((x) => x.correct)).toEqual([true, false, true, true]);
    expect(aggregateToolhop(r.metas, 0).metrics.tokens_per_correct!.value).toBeCloseTo(10_000 / 3, 6);
    expect(r.metas.map((m) => m.usage.total_tokens)).toEqual([1000, 2000, 3000, 4000]);
  });

  it("rescore takes the reference's token counts from its results lines", () => {
    const ref = mkdtempSync(join(tmpdir(), 'tg-rescore-ref-'));
    try {
      const row = rows[0]!;
      appendJsonl(join(ref, FILES.predictions), {
        idx: row.id,
        id: row.id,
        question: row.question,
        predicted_answer: row.answer,
        model_name_or_path: 'm',
      });
      appendJsonl(join(ref, FILES.results), {
        id: row.id,
        idx: row.id,
        gold_answer: row.answer,
        style: 'single_langgraph',
        solve_s: 4,
        correct: false,
        turns: 2,
        prompt_tokens: 700,
        completion_tokens: 50,
        total_tokens: 750,
      });
      const r = rescoreDir(ref);
      expect(r.metas[0]).toMatchObject({
        correct: true,
        turns: 2,
        usage: { prompt_tokens: 700, completion_tokens: 50, total_tokens: 750 },
      });
      expect(readFileSync(join(ref, FILES.results), 'utf8')).toMatch(
        /^\{"id":[^,]+,"idx":[^,]+,"gold_answer":[^,]+,"style":"single_langgraph","solve_s":4\.0,/,
      );
    } finally {
      rmSync(ref, { recursive: true, force: true });
    }
  });
});
