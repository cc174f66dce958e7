import fc from 'fast-check';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PyLiteralError, literalEval } from '../core/pyliteral/index.ts';
import { startOracle } from '../core/pyliteral/python-oracle.ts';
import { prefetchedOracle } from '../core/testkit.ts';
import { pyStrip } from '../core/pyliteral/pystr.ts';
import { scoreTriple } from '../core/pyliteral/testkit.ts';
import { scoreAnswer } from './score.ts';

describe('scoreAnswer (score_answer of the reference runner)', () => {
  it.each([
    // literal golds: Python equality of the answer-tag contents
    ['1998', 'The answer is <answer>1998</answer>', '', 'literal'],
    ['1998', '<answer>1998.0</answer>', '', 'literal'],
    ['5.0', '<answer>5</answer>', '', 'literal'],
    ['[3, 631]', '<answer>[3,631]</answer>', '', 'literal'],
    ['[3, 631]', '<answer>(3, 631)</answer>', '', null], // list != tuple, and the substring rule is not tried
    ['1998', '<answer>The year 1998</answer>', '', null], // literal gold: no substring fallback
    ['1998', '<answer>x</answer> and <answer> 1998 </answer>', '', 'literal'], // text after the last <answer>
    ['1998', '<ANSWER>1998</ANSWER>', '', null], // the split is case-sensitive; "<ANSWER>1998</ANSWER>" is not a literal
    ['1,000', '<answer>1000</answer>', '', null], // "1,000" is the tuple (1, 0)
    ['1,000', '<answer>1, 000</answer>', '', 'literal'],
    ["'abc'", '<answer>"abc"</answer>', '', 'literal'],
    ['True', '<answer>1</answer>', '', 'literal'],
    // non-literal golds: substring after dropping ".0" and commas, lowercased
    ['Paris', 'It is <answer>paris, France</answer>', '', 'substring'],
    ['2017-10-13', '<answer>2017-10-13</answer>', '', 'substring'],
    ["O'Sullivan", "<answer>Maureen O'Sullivan</answer>", '', 'substring'],
    ['İstanbul', '<answer>i\u0307stanbul</answer>', '', 'substring'],
    ['Thomas Mawson', 'Thomas Mawson', '', 'substring'],
    ['Sun', '<answer>Moon</answer>', '', null],
    // the previous tool result as a last resort
    ['Sun', '<answer>Moon</answer>', '{"surname": "SUN Quan"}', 'tool_result'],
    ['1998', '<answer>1999</answer>', '{"year": 1,998.0}', 'tool_result'],
    ['1998', '<answer>1999</answer>', '', null],
  ] as const)('gold %j, message %j, tool %j -> %s', (gold, message, tool, rule) => {
    const r = scoreAnswer(gold, message, tool);
    expect(r.rule).toBe(rule);
    expect(r.correct).toBe(rule !== null);
  });

  it('reports the extracted answer', () => {
    expect(scoreAnswer('x', 'blah <answer> Paris </answer>').predicted).toBe('Paris');
    expect(scoreAnswer('x', '  no tags\n').predicted).toBe('no tags');
  });

  it('reports the span it scored: with two tags, the last one (the one the verdict is about)', () => {
    const r = scoreAnswer('42', 'First guess <answer>7</answer>, on reflection <answer> 42 </answer>');
    expect(r.correct).toBe(true);
    expect(r.predicted).toBe('42');
    // An unclosed last tag: the scorer reads to the end of the text, and so does the report.
    expect(scoreAnswer('x', '<answer>a</answer> then <answer>b').predicted).toBe('b');
  });

  it('marks a literal comparison it cannot decide instead of guessing', () => {
    const r = scoreAnswer("'\\ud83d\\ude00'", "<answer>'\\ud83d\\ude00'</answer>");
    expect(r.undecided).toBe(true);
    expect(r.correct).toBe(false);
  });
});

const { oracle, skipReason } = await startOracle('toolhop/score');
afterAll(async () => oracle?.close());

describe.skipIf(skipReason !== undefined)(
  `scoreAnswer agrees with the Python reference${skipReason ? ` — SKIPPED: ${skipReason}` : ''}`,
  () => {
    it('on generated (gold, final message, tool result) triples', async () => {
      let fired = { literal: 0, substring: 0, tool_result: 0, none: 0 };
      const { seed, ask } = await prefetchedOracle(oracle!, scoreTriple, 3000, ([gold, message, tool]) => ({
        op: 'score',
        gold,
        msg: message,
        tool,
      }));
      await fc.assert(
        fc.asyncProperty(scoreTriple, async ([gold, message, tool]) => {
          const ref = await ask<{ rule: string | null }>({ op: 'score', gold, msg: message, tool });
          const ours = scoreAnswer(gold, message, tool);
          if (ours.undecided) return;
          fired = { ...fired, [ref.rule ?? 'none']: fired[(ref.rule ?? 'none') as keyof typeof fired] + 1 };
          if (ours.rule !== ref.rule)
            throw new Error(`${JSON.stringify([gold, message, tool])}: ${ours.rule} vs python ${ref.rule}`);
        }),
        { numRuns: 3000, seed },
      );
      // Every branch of score_answer was exercised (guards against generators drifting into one case).
      expect(Math.min(fired.literal, fired.substring, fired.tool_result, fired.none)).toBeGreaterThan(20);
    });
  },
);

const SAMPLE = fileURLToPath(new URL('../../../shared/data/toolhop/ToolHop.sample.json', import.meta.url));

describe.skipIf(!existsSync(SAMPLE) || skipReason !== undefined)(
  `literalEval on the real ToolHop answers matches python3${!existsSync(SAMPLE) ? ' (needs ../shared/data)' : skipReason ? ` — SKIPPED: ${skipReason}` : ''}`,
  () => {
    it('accepts and rejects every answer and sub_task value exactly as ast.literal_eval(x.strip()) does', async () => {
      const rows = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Array<{
        answer: unknown;
        sub_task: Record<string, unknown>;
      }>;
      const values = rows.flatMap((r) => [r.answer, ...Object.values(r.sub_task)]).map((v) => String(v));
      expect(values.length).toBeGreaterThan(rows.length);
      const refs = await oracle!.ask<Array<{ ok: boolean }>>(values.map((v) => ({ op: 'eval', src: pyStrip(v) })));
      const mismatches = values.filter((v, k) => {
        let ok = true;
        try {
          literalEval(pyStrip(v));
        } catch (err) {
          if (!(err instanceof PyLiteralError)) throw err;
          ok = false;
        }
        return ok !== refs[k]!.ok;
      });
      expect(mismatches).toEqual([]);
    });
  },
);
