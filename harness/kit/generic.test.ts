import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import { reproHeader } from '../core/repro.ts';
import { validSummary } from '../report/summary.ts';
import { finalizeSuite } from './finalize.ts';
import { aggregateGeneric, genericAggregator, type ScoredMeta, scoredMetaSchema } from './generic.ts';
import { appendJournal, sealMeta, verifiedJournal } from './journal.ts';

const meta = (id: string, scores: Record<string, number | null>, extra: Partial<ScoredMeta> = {}): ScoredMeta => ({
  suite: 's',
  id,
  trial: 0,
  error: null,
  pass: true,
  reason: null,
  scores,
  ...extra,
});

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('generic aggregation of null scores', () => {
  const metas = [
    meta('1', { a: 1, b: null }),
    meta('2', { a: 0, b: 1 }, { pass: false }),
    meta('3', { a: null, b: null }, { pass: false, unscored: true }),
  ];

  it("takes a scorer's metric over its scored cases only and counts the unscored apart", () => {
    const agg = aggregateGeneric(metas, 1);
    expect(agg.metrics.a!.value).toBe(0.5);
    expect(agg.metrics.a!.n).toBe(2);
    expect(agg.metrics.b!.value).toBe(1);
    expect(agg.metrics.b!.n).toBe(1);
    expect(agg.counts).toMatchObject({ passed: 1, failed: 1, unscored: 1, runs: 3 });
    expect(agg.extra).toEqual({ unscored: { a: 1, b: 2 } });
    // An unscored case is not a pass.
    expect(agg.metrics.pass_rate!.value).toBeCloseTo(1 / 3);
    const outcomes = genericAggregator.outcomes!(metas);
    expect([...outcomes.b!.keys()]).toEqual(['2']);
  });

  it('writes the unscored counts to summary.json and report.md', () => {
    dir = mkdtempSync(join(tmpdir(), 'tg-unscored-'));
    const header = reproHeader(readConfig({}), { startedAt: new Date(0), endedAt: new Date(1) });
    finalizeSuite('s', genericAggregator, metas, { header, config: {}, seed: 0, outDir: dir });
    const s = validSummary(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')));
    expect(s.counts.unscored).toBe(1);
    expect(s.extra.unscored).toEqual({ a: 1, b: 2 });
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(
      "Unscored (a scorer returned null; left out of that scorer's metric): a 1, b 2 run(s); 1 run(s) with no score at all (not passed, not failed).",
    );
  });
});

describe('generic aggregation of a suite with no runs', () => {
  it('has no pass@k metrics (no k from an empty minimum)', () => {
    expect(Object.keys(aggregateGeneric([], 1).metrics).sort()).toEqual(['error_rate', 'pass_rate']);
  });
});

describe('the journal keeps null scores', () => {
  it('accepts a null score and a resume reads it back; NaN-like values stay refused', () => {
    dir = mkdtempSync(join(tmpdir(), 'tg-null-'));
    const schema = scoredMetaSchema({ scorers: ['a', 'b'] });
    expect(schema.safeParse({ scores: { a: null, b: 1 } }).success).toBe(true);
    expect(schema.safeParse({ scores: { a: 2, b: 1 } }).success).toBe(false);
    const m = meta('1', { a: null, b: 0.5 });
    appendJournal(dir, sealMeta(m, {}));
    const back = verifiedJournal<ScoredMeta>(dir, 's', schema);
    expect([...back.values()][0]!.scores).toEqual({ a: null, b: 0.5 });
  });
});
