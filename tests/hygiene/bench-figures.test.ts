import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatFigure, readRecord } from '../../bench/record.ts';
import { fromRoot } from '../../harness/core/paths.ts';

// Figures in README.md and docs/*.md that come from a benchmark are marked `<!-- bench:NAME.KEY -->` right after
// the number; each must equal the committed record bench/records/NAME.json (which carries its date, commit and
// machine). A table row that holds a marked figure may hold no unmarked one, so a re-measured row cannot keep a
// stale number beside fresh ones.

const MARK = /([\d][\d,]*(?:\.\d+)?)<!-- bench:([\w-]+)\.(\w+) -->/g;

function documents(): Array<[string, string]> {
  const docs = readdirSync(fromRoot('docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  return ['README.md', ...docs].map((f) => [f, readFileSync(fromRoot(f), 'utf8')]);
}

describe('benchmark figures in the documentation', () => {
  const marked = documents().flatMap(([file, text]) =>
    [...text.matchAll(MARK)].map((m) => ({ file, printed: m[1]!, bench: m[2]!, key: m[3]! })),
  );

  it('the parser throughput in docs/benchmarks.md is marked (it comes from bench/parse.ts)', () => {
    expect(
      marked.filter((m) => m.file === join('docs', 'benchmarks.md') && m.bench.startsWith('parsers')).length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('every marked figure equals its bench record, and the record says when and on which commit it was measured', () => {
    for (const m of marked) {
      const rec = readRecord(m.bench);
      expect(rec.figures, `${m.file}: bench:${m.bench}.${m.key}`).toHaveProperty(m.key);
      expect(m.printed, `${m.file}: bench:${m.bench}.${m.key} (record of ${rec.date}, ${rec.commit})`).toBe(
        formatFigure(rec.figures[m.key]!),
      );
    }
  });

  it('a table row with a recorded figure has no unrecorded number', () => {
    for (const [file, text] of documents()) {
      for (const line of text.split('\n')) {
        if (!line.startsWith('|') || !line.includes('<!-- bench:')) continue;
        const rest = line.replace(MARK, '').replace(/<!--[^>]*-->/g, '');
        const cells = rest.split('|').slice(2); // the first cell names the measure
        expect(cells.join('|').match(/\d[\d,.]*/g) ?? [], `${file}: ${line}`).toEqual([]);
      }
    }
  });
});
