import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import { reproHeader } from '../core/repro.ts';
import { validSummary } from '../report/summary.ts';
import { failingSection, finalizeSuite } from './finalize.ts';
import { genericAggregator, type ScoredMeta } from './generic.ts';
import { JOURNAL } from './journal.ts';

const out = mkdtempSync(join(tmpdir(), 'tg-finalize-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const header = reproHeader(readConfig({}), { startedAt: new Date(0), endedAt: new Date(1) });

const meta = (id: string, pass: boolean, extra: Partial<ScoredMeta> = {}): ScoredMeta => ({
  suite: 'u',
  id,
  trial: 0,
  error: null,
  pass,
  reason: pass ? null : `wrong ${id}`,
  trace: `traces/${id}.json`,
  ...extra,
});

describe('finalizeSuite on the generic aggregator', () => {
  it('pass_rate and one metric per scorer with CI and n; breakdowns by tag (a data key such as __proto__ included)', () => {
    const metas = [
      meta('a', true, { scores: { exact: 1, tool: 1 }, tags: { topic: '__proto__' } }),
      meta('b', false, { scores: { exact: 0, tool: 1 }, tags: { topic: '__proto__' } }),
      meta('c', false, { scores: { exact: 0, tool: 0 }, tags: { topic: 'math' } }),
      meta('d', false, { error: 'endpoint down', scores: { exact: 1, tool: 1 }, tags: { topic: 'math' } }),
    ];
    const f = finalizeSuite('u', genericAggregator, metas, {
      header,
      config: {},
      seed: 0,
      outDir: out,
      gate: 'pass_rate>=0.5,exact.n==4',
    });
    const s = validSummary(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(s.metrics.pass_rate).toMatchObject({ value: 0.25, n: 4 });
    // A harness error scores 0 on every scorer, whatever the meta says.
    expect(s.metrics.exact).toMatchObject({ value: 0.25, n: 4 });
    expect(s.metrics.tool).toMatchObject({ value: 0.5, n: 4 });
    expect(Object.keys(s.breakdowns.topic!)).toEqual(['__proto__', 'math']);
    expect(f.gate?.passed).toBe(false);
    expect(f.harnessErrors).toBe(1);
  });

  it('keeps the last meta per instance and trial; the journal is rewritten sorted', () => {
    const dir = mkdtempSync(join(out, 'j-'));
    finalizeSuite('u', genericAggregator, [meta('10', false), meta('2', true), meta('10', true)], {
      header,
      config: {},
      seed: 0,
      outDir: dir,
    });
    const lines = readFileSync(join(dir, JOURNAL), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ScoredMeta);
    expect(lines.map((m) => [m.id, m.pass])).toEqual([
      ['2', true],
      ['10', true],
    ]);
  });

  it('rewrites record files in instance order, one line per key', () => {
    const dir = mkdtempSync(join(out, 'r-'));
    writeFileSync(
      join(dir, 'rows.jsonl'),
      ['{"id":"b","v":1}', '{"id":"a","v":1}', '{"id":"b","v":2}'].join('\n') + '\n',
    );
    finalizeSuite('u', genericAggregator, [meta('a', true, { order: 0 }), meta('b', true, { order: 1 })], {
      header,
      config: {},
      seed: 0,
      outDir: dir,
      recordFiles: ['rows.jsonl'],
    });
    expect(readFileSync(join(dir, 'rows.jsonl'), 'utf8')).toBe('{"id":"a","v":1}\n{"id":"b","v":2}\n');
  });
});

describe('the failing-instances list', () => {
  it('lists failures by id with a reason and a trace link, capped with the count of the rest', () => {
    const metas = Array.from({ length: 7 }, (_, i) => meta(String(i), i === 3));
    const md = failingSection(metas, 4);
    expect(md).toContain('6 of 7 runs did not pass');
    expect(md.match(/^- \*\*/gm)).toHaveLength(4);
    expect(md).toContain('… and 2 more');
    expect(md).toContain('([trace](traces/0.json))');
  });

  it('makes ids and reasons from data inert: no HTML, no image beacon, no table break', () => {
    const md = failingSection([meta('x`<script>', false, { reason: '![p](http://evil/p.png) <img src=x> a|b' })]);
    expect(md).not.toMatch(/<script>|<img|!\[p\]\(/);
    expect(md).toContain('&lt;img src=x&gt;');
  });
});

describe('finalizeSuite when aggregation fails', () => {
  it("leaves no earlier summary.json or report.md to pass as this run's: they are renamed *.stale and the error says so", () => {
    const dir = mkdtempSync(join(out, 'stale-'));
    finalizeSuite('u', genericAggregator, [meta('a', true)], { header, config: {}, seed: 0, outDir: dir });
    const previous = readFileSync(join(dir, 'summary.json'), 'utf8');
    const broken = {
      ...genericAggregator,
      aggregate: () => {
        throw new TypeError("Cannot read properties of undefined (reading 'total_tokens')");
      },
    };
    expect(() => finalizeSuite('u', broken, [meta('a', true)], { header, config: {}, seed: 0, outDir: dir })).toThrow(
      /u: aggregating 1 instances failed: .*total_tokens.*renamed \*\.stale/,
    );
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);
    expect(existsSync(join(dir, 'report.md'))).toBe(false);
    expect(readFileSync(join(dir, 'summary.json.stale'), 'utf8')).toBe(previous);
  });
});
