import { describe, expect, it } from 'vitest';
import { mapCase } from './cases.ts';

const meta = { suite: 'my-eval', id: '1', trial: 0, error: null, pass: false, scores: { factuality: 0 } };

describe("a describeEval case's judges in the viewer", () => {
  it('shows each judged scorer: model, verdict, score, reason, tokens, then the raw reply and the prompt', () => {
    const m = mapCase({
      suite: 'my-eval',
      meta,
      trace: {
        output: { messages: [], usage: { prompt_tokens: 3, completion_tokens: 1 } },
        judges: {
          factuality: {
            model: 'sim:judge',
            prompt: { system: 'grade it', user: '<candidate_answer>\nLyon\n</candidate_answer>' },
            reply: '{"verdict":"fail","reason":"says Lyon"}',
            verdict: { verdict: 'fail', reason: 'says Lyon' },
            score: 0,
            error: null,
            usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
          },
        },
      },
    });
    const titles = m.detail.sections.map((s) => s.title);
    expect(titles).toEqual(
      expect.arrayContaining(['Judge: factuality', 'Judge factuality: reply', 'Judge factuality: prompt']),
    );
    expect(m.detail.sections.find((s) => s.title === 'Judge: factuality')).toMatchObject({
      rows: [
        ['model', 'sim:judge'],
        ['verdict', 'fail'],
        ['score', '0'],
        ['reason', 'says Lyon'],
        ['tokens', '40 + 9'],
      ],
    });
    expect(m.detail.sections.find((s) => s.title === 'Judge factuality: prompt')).toMatchObject({
      text: 'grade it\n\n<candidate_answer>\nLyon\n</candidate_answer>',
    });
  });

  it('a judge error shows its error and the missing reply; a trace whose judges are not an object shows none', () => {
    const failed = mapCase({
      suite: 'my-eval',
      meta: { ...meta, error: "scorer 'factuality': judge error: x", scores: { factuality: null } },
      trace: { judges: { factuality: { model: 'm', reply: null, verdict: null, error: 'judge request failed: 500' } } },
    });
    const pairs = failed.detail.sections.find((s) => s.title === 'Judge: factuality');
    expect(pairs).toMatchObject({ rows: expect.arrayContaining([['error', 'judge request failed: 500']]) });
    expect(failed.detail.sections.find((s) => s.title === 'Judge factuality: reply')).toMatchObject({
      text: '(no reply: the request failed)',
    });
    const odd = mapCase({ suite: 'my-eval', meta, trace: { judges: 'not an object' } });
    expect(odd.detail.sections.some((s) => s.title.startsWith('Judge'))).toBe(false);
  });
});
