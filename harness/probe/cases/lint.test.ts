import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../core/paths.ts';
import { CASES_FILE, casesJsonl, generateCases, paletteJson, phrasingInventory, TOOLS_FILE } from './generate.ts';
import { lintCases } from './lint.ts';
import { caseFromRow, loadCases, loadPalette } from './load.ts';
import { CATEGORIES, type CaseRow } from './types.ts';

const committed = loadCases(fromRoot(CASES_FILE));

function fromRows(rows: CaseRow[]) {
  const { palette } = loadPalette(fromRoot(TOOLS_FILE));
  return { palette, cases: rows.map((r, i) => caseFromRow(r, palette, 'memory.jsonl', i + 1)) };
}

describe('toolgauge probe cases (cases/probe)', () => {
  it('the committed files are exactly what the generator produces', () => {
    expect(readFileSync(fromRoot(CASES_FILE), 'utf8')).toBe(casesJsonl(generateCases()));
    expect(readFileSync(fromRoot(TOOLS_FILE), 'utf8')).toBe(paletteJson());
  });

  it('lint clean: no schema or leakage error, no distribution warning, every phrasing used in both splits', () => {
    const r = lintCases(committed, { phrasings: phrasingInventory() });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    for (const split of ['dev', 'test']) {
      expect(Object.keys(r.stats.bySplit[split]!).sort()).toEqual([...CATEGORIES]);
      expect(Object.values(r.stats.bySplit[split]!).every((n) => n >= 16)).toBe(true);
    }
    expect(r.stats.firstPositionShare).toBeLessThan(0.4);
  });

  it('covers every category, parallel calls, abstention traps, multi-turn carry-over and catalogs of 3/8/16/32', () => {
    const cs = committed.cases;
    expect(cs.filter((c) => c.expected === null).every((c) => c.cat === 'C5')).toBe(true);
    expect(cs.filter((c) => (c.expected?.length ?? 0) > 1).length).toBeGreaterThanOrEqual(16);
    expect(cs.filter((c) => c.messages.some((m) => m.tool_calls?.length)).length).toBe(40);
    expect(new Set(cs.filter((c) => c.cat === 'C7').map((c) => c.tools.length))).toEqual(new Set([3, 8, 16, 32]));
    // Parameter descriptions everywhere.
    for (const c of cs)
      for (const t of c.tools)
        for (const p of Object.values(
          (t.function.parameters as { properties: Record<string, { description?: string }> }).properties,
        ))
          expect(p.description).toBeTruthy();
  });

  it('the seed moves the correct tool around the catalog', () => {
    const a = generateCases(1)
      .filter((r) => r.cat === 'C7')
      .map((r) => (r.tools as string[]).indexOf((r.expected as { tool: string }).tool));
    const b = generateCases(2)
      .filter((r) => r.cat === 'C7')
      .map((r) => (r.tools as string[]).indexOf((r.expected as { tool: string }).tool));
    expect(a).not.toEqual(b);
    expect(generateCases(1)).toEqual(generateCases(1));
  });
});

describe('the linter catches what it should', () => {
  const rows = generateCases();

  it('leakage: a slot value or a user message shared by dev and test', () => {
    const leak = rows.map((r) => (r.id === 'c1_weather_test_000' ? { ...r, slots: { city: 'Tokyo' } } : r));
    const r = lintCases(fromRows(leak));
    expect(
      r.errors.some(
        (e) =>
          e.rule === 'leakage' &&
          /value 'tokyo' appears in dev \(.+\) and test \(c1_weather_test_000\)/.test(e.message),
      ),
    ).toBe(true);
    const dev = rows.find((r) => r.id === 'c1_weather_dev_000')!;
    const same = rows.map((r) => (r.id === 'c1_weather_test_000' ? { ...r, turns: dev.turns } : r));
    expect(lintCases(fromRows(same)).errors.some((e) => e.rule === 'leakage' && /user message/.test(e.message))).toBe(
      true,
    );
  });

  it('schema: an expected call that violates its tool schema, a rule for an argument nobody expects', () => {
    const bad = rows.map((r) =>
      r.id === 'c3_flight_dev_000'
        ? {
            ...r,
            expected: {
              tool: 'book_flight',
              args: { ...(r.expected as { args: Record<string, unknown> }).args, passengers: 12 },
            },
          }
        : r,
    );
    expect(lintCases(fromRows(bad)).errors).toEqual([
      expect.objectContaining({
        rule: 'schema',
        id: 'c3_flight_dev_000',
        message: expect.stringMatching(/passengers: must be <= 9/),
      }),
    ]);
    const rule = rows.map((r) =>
      r.id === 'c1_stock_dev_000' ? { ...r, arg_rules: { ticker: { casefold: true } } } : r,
    );
    expect(lintCases(fromRows(rule)).errors[0]?.message).toMatch(/argument rule 'ticker' names no expected argument/);
  });

  it('distribution: the correct tool always first, a missing category, an unused phrasing', () => {
    const first = rows.map((r) => {
      const want =
        Array.isArray(r.expected) || !r.expected ? null : 'tool' in r.expected ? r.expected.tool : r.expected.name;
      const tools = r.tools as string[];
      return want && tools.length >= 3 ? { ...r, tools: [want, ...tools.filter((t) => t !== want)] } : r;
    });
    const w = lintCases(fromRows(first)).warnings;
    expect(w.some((x) => x.rule === 'position' && /listed first in \d+ of \d+ cases/.test(x.message))).toBe(true);
    const noC8 = lintCases(fromRows(rows.filter((r) => !(r.cat === 'C8' && r.split === 'test')))).warnings;
    expect(noC8).toContainEqual({ rule: 'category', message: 'split test: category C8 has 0 case(s) (fewer than 8)' });
    const unused = lintCases(fromRows(rows.filter((r) => r.phrasing !== 'c1_weather#4')), {
      phrasings: phrasingInventory(),
    }).warnings;
    expect(unused.filter((x) => x.rule === 'phrasing').map((x) => x.message)).toEqual([
      'split dev: phrasing c1_weather#4 is never used',
      'split test: phrasing c1_weather#4 is never used',
    ]);
  });
});

const TOOLHOUND = fromRoot('..', 'shared', 'data', 'toolhound', 'dev.jsonl');
describe.skipIf(!existsSync(TOOLHOUND))('the Toolhound dev cases (needs ../shared/data)', () => {
  it('load as is (152 cases, 32 tools) and lint without errors, with the known warnings: position bias, no C8, undescribed parameters', () => {
    const l = loadCases(TOOLHOUND);
    expect(l.cases).toHaveLength(152);
    expect(l.palette.size).toBe(32);
    const r = lintCases(l);
    expect(r.errors).toEqual([]);
    expect(r.stats.firstPositionShare).toBeGreaterThan(0.7);
    const rules = new Set(r.warnings.map((w) => w.rule));
    expect(rules).toEqual(new Set(['category', 'position', 'descriptions']));
  });
});
