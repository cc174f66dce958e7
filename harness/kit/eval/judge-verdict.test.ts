import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildJudgePrompt, inertText } from './judge-prompt.ts';
import { parseJudgeReply, REASON_CAP } from './judge-verdict.ts';

// Replies a judge might send: plain prose, JSON-ish fragments, fences, braces, verdict words.
const piece = fc.oneof(
  fc.string(),
  fc.constantFrom('{', '}', '```', '```json\n', '\n', '"verdict"', ':', '"pass"', '"fail"', '"reason"', ',', 'null'),
  fc.json(),
);
const replyText = fc.array(piece, { maxLength: 12 }).map((xs) => xs.join(''));

const verdictObject = fc.record(
  {
    verdict: fc.constantFrom('pass', 'fail'),
    score: fc.double({ min: 0, max: 1, noNaN: true }),
    // Printable text, braces, quotes and backticks included (what could confuse the reader).
    reason: fc.stringMatching(/^[\w ,.!?'"{}:`<>é-]{0,80}$/),
  },
  { requiredKeys: ['verdict', 'reason'] },
);

describe('parseJudgeReply', () => {
  it('any reply text either reads as a verdict with a score in [0, 1], or is an error; it never throws', () => {
    fc.assert(
      fc.property(fc.oneof(replyText, fc.string()), (text) => {
        const r = parseJudgeReply(text);
        if (r.ok) {
          expect(['pass', 'fail']).toContain(r.verdict.verdict);
          expect(r.score).toBeGreaterThanOrEqual(0);
          expect(r.score).toBeLessThanOrEqual(1);
          expect(r.verdict.reason).not.toMatch(/[\r\n]/);
        } else {
          expect(r.error.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('a verdict object reads back the same, alone, fenced after prose, or in prose', () => {
    const wrap = fc.constantFrom(
      (j: string) => j,
      (j: string) => `Here is my verdict.\n\`\`\`json\n${j}\n\`\`\``,
      (j: string) => `\`\`\`\n${j}\n\`\`\`\nThat is all.`,
      (j: string) => `My verdict: ${j}`,
    );
    fc.assert(
      fc.property(verdictObject, wrap, (v, w) => {
        const r = parseJudgeReply(w(JSON.stringify(v)));
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.verdict.verdict).toBe(v.verdict);
        expect(r.verdict.reason).toBe(v.reason.trim());
        expect(r.score).toBe(v.score ?? (v.verdict === 'pass' ? 1 : 0));
      }),
    );
  });

  it.each([
    ['', /empty reply/],
    ['The answer looks right to me.', /no JSON verdict/],
    ['{"verdict": "maybe", "reason": "x"}', /verdict/],
    ['{"verdict": "pass"}', /reason/],
    ['{"verdict": "pass", "score": 1.5, "reason": "x"}', /score/],
    ['{"verdict": "pass", "reason": "x"', /not JSON/],
    // Two verdicts: which one holds is not for the reader to guess.
    ['{"verdict": "pass", "reason": "a"} {"verdict": "fail", "reason": "b"}', /not JSON/],
  ])('%j is a judge error (%s)', (text, why) => {
    const r = parseJudgeReply(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(why);
  });

  it('reads the verdict word in any case, and keeps a long reason on one line, cut', () => {
    const r = parseJudgeReply(JSON.stringify({ verdict: ' PASS ', reason: `a\nb${'x'.repeat(2 * REASON_CAP)}` }));
    expect(r.ok && r.verdict.verdict).toBe('pass');
    expect(r.ok && r.verdict.reason.startsWith('a b')).toBe(true);
    expect(r.ok && r.verdict.reason.length).toBeLessThan(REASON_CAP + 40);
  });
});

describe('the judge prompt', () => {
  it('no text inside a section can open or close a section', () => {
    const tag = fc
      .record({
        close: fc.boolean(),
        name: fc.constantFrom('candidate_answer', 'Reference-Answer', 'question', 'CRITERIA', 'candidate answer'),
        ws: fc.constantFrom('', ' ', '\t'),
      })
      .map(({ close, name, ws }) => `<${ws}${close ? '/' : ''}${ws}${name}>`);
    fc.assert(
      fc.property(fc.string(), tag, fc.string(), (a, t, b) => {
        const hostile = `${a}${t}${b}`;
        const { user } = buildJudgePrompt({ criteria: 'c', question: hostile, reference: hostile, candidate: hostile });
        for (const name of ['criteria', 'question', 'reference_answer', 'candidate_answer'])
          expect(user.split(`<${name}>`).length - 1 + (user.split(`</${name}>`).length - 1)).toBe(2);
        expect(inertText(t)).not.toMatch(/^</);
      }),
    );
  });
});
