import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMM_FORMATS,
  CONFIDENCES,
  STATUSES,
  commContract,
  parseReport,
  renderReport,
  requestedCommFormat,
  type Report,
} from './comm.ts';

/** Report text fields: any text, including lines that look like tags or escapes, trimmed and non-blank. */
const line = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '[STATUS]',
      '[NEXT]',
      '  [EVIDENCE]  ',
      '\\[SUMMARY]',
      '\\',
      '\\\\x',
      '[ANSWER_CANDIDATE]',
      '[X]\r',
      '<report>',
      '{"a": "}"}',
    ),
  },
);
const text = fc
  .array(line, { minLength: 1, maxLength: 4 })
  .map((ls) => ls.join('\n').trim())
  .filter((s) => s.length > 0);
const report: fc.Arbitrary<Report> = fc.record(
  {
    status: fc.constantFrom(...STATUSES),
    summary: text,
    evidence: text,
    confidence: fc.constantFrom(...CONFIDENCES),
    next: text,
    answer_candidate: fc.oneof(text, fc.constant('')),
  },
  { requiredKeys: ['status', 'summary', 'evidence', 'confidence', 'next'] },
);

describe('report round trip', () => {
  it.each(['semi_structured', 'structured'] as const)('%s: parse(render(r)) gives r back', (fmt) => {
    fc.assert(
      fc.property(report, (r) => {
        const back = parseReport(renderReport(r, fmt), fmt);
        expect(back.errors).toEqual([]);
        expect(back.ok).toBe(true);
        expect(back.report).toEqual(r);
      }),
      { numRuns: 400 },
    );
  });

  it.each(['semi_structured', 'structured'] as const)(
    '%s: the report is found with the answer and other text around it',
    (fmt) => {
      fc.assert(
        fc.property(report, fc.string({ maxLength: 20 }), (r, prefix) => {
          const t = `${fmt === 'structured' ? prefix.replaceAll('<report>', '') : ''}\n${renderReport(r, fmt)}\n`;
          expect(parseReport(t, fmt).report).toEqual(r);
        }),
        { numRuns: 200 },
      );
    },
  );

  it('no format throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom(...COMM_FORMATS), (t, fmt) => {
        const r = parseReport(t, fmt);
        expect(r.ok).toBe(r.errors.length === 0);
      }),
      { numRuns: 500 },
    );
  });
});

describe('semi_structured parsing', () => {
  const good =
    '[STATUS]\ncompleted\n\n[SUMMARY]\nIt is 47.\n\n[EVIDENCE]\nyear_difference returned 47\n\n[CONFIDENCE]\nhigh - two tools agree\n\n[NEXT]\nAnswer 47.';

  it('reads the five tags; confidence and status by their first word', () => {
    const r = parseReport(`${good}\n[ANSWER_CANDIDATE]\n47`, 'semi_structured');
    expect(r.ok).toBe(true);
    expect(r.report).toEqual({
      status: 'completed',
      summary: 'It is 47.',
      evidence: 'year_difference returned 47',
      confidence: 'high',
      next: 'Answer 47.',
      answer_candidate: '47',
    });
    expect(parseReport(good.replace('completed', 'Completed.'), 'semi_structured').report?.status).toBe('completed');
  });

  it.each([
    ['a missing tag', good.replace('[EVIDENCE]\nyear_difference returned 47\n\n', ''), 'missing [EVIDENCE]'],
    ['an empty section', good.replace('It is 47.', '  '), 'missing [SUMMARY]'],
    ['an unknown status', good.replace('completed', 'done'), "invalid status 'done'"],
    ['an unknown confidence', good.replace('high - two tools agree', 'sure'), "invalid confidence 'sure'"],
    ['a tag not alone on its line', good.replace('[STATUS]\ncompleted', '[STATUS] completed'), 'missing [STATUS]'],
    ['plain prose', 'The answer is 47.', 'missing [STATUS]'],
  ])('rejects %s', (_, t, error) => {
    const r = parseReport(t, 'semi_structured');
    expect(r.ok).toBe(false);
    expect(r.errors).toContain(error);
    expect(r.report).toBeUndefined();
  });
});

describe('structured parsing (zod-validated JSON)', () => {
  const r: Report = { status: 'blocked', summary: 's', evidence: 'e', confidence: 'low', next: 'n' };
  const json = JSON.stringify(r);

  it('accepts the <report> block, a ```json fence, or a reply that is only the object', () => {
    expect(parseReport(`Notes first.\n<report>${json}</report>\n<answer>1</answer>`, 'structured').report).toEqual(r);
    expect(parseReport(`<report>\n${json}`, 'structured').report).toEqual(r); // closing tag optional
    expect(parseReport('```json\n' + json + '\n```', 'structured').report).toEqual(r);
    expect(parseReport(`  ${json}  `, 'structured').report).toEqual(r);
  });

  it.each([
    ['no JSON at all', 'The answer is 1.', 'missing <report> JSON object'],
    ['truncated JSON', `<report>${json.slice(0, 20)}`, 'malformed JSON'],
    ['a missing field', `<report>${JSON.stringify({ ...r, next: undefined })}</report>`, 'next:'],
    ['a blank field', `<report>${JSON.stringify({ ...r, summary: ' ' })}</report>`, 'summary: must not be empty'],
    ['a bad enum', `<report>${JSON.stringify({ ...r, confidence: 'very high' })}</report>`, 'confidence:'],
    ['a non-object', '<report>[1, 2]</report>', 'missing <report> JSON object'],
  ])('rejects %s', (_, t, error) => {
    const out = parseReport(t, 'structured');
    expect(out.ok).toBe(false);
    expect(out.errors.join('; ')).toContain(error);
  });
});

describe('freeform and the format contracts', () => {
  it('freeform always parses (there is no form to miss)', () => {
    expect(parseReport('', 'freeform').ok).toBe(true);
    expect(parseReport('[STATUS]\n??', 'freeform').ok).toBe(true);
  });

  it('the contract names its format, and the name is read back from a whole system prompt', () => {
    expect(commContract('freeform')).toBe('');
    for (const f of COMM_FORMATS) expect(requestedCommFormat(`Role text.\n\n${commContract(f)}\n\nMore.`)).toBe(f);
    expect(requestedCommFormat('INTER-AGENT REPORT FORMAT: bogus')).toBe('freeform');
  });

  it("the contract's own example parses (the instructions are followable)", () => {
    const example = /<report>\n(.*)\n<\/report>/.exec(commContract('structured'))![1]!;
    expect(parseReport(`<report>${example}</report>`, 'structured').ok).toBe(true);
  });
});
