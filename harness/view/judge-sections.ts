import { num, obj, type Section, text } from '../kit/case-view/index.ts';

/**
 * A judged scorer's evidence from a describeEval trace (`judges.<scorer>`): the judge model, its verdict or error,
 * the raw reply and the prompt it was sent. Lenient, as every case view: a field of the wrong kind reads as empty.
 */
export function judgeSections(judges: unknown): Section[] {
  return Object.entries(obj(judges)).flatMap(([scorer, raw]): Section[] => {
    const j = obj(raw);
    const v = obj(j.verdict);
    const prompt = obj(j.prompt);
    const usage = obj(j.usage);
    return [
      {
        kind: 'pairs',
        title: `Judge: ${scorer}`,
        rows: [
          ['model', text(j.model) ?? '—'],
          ['verdict', text(v.verdict) ?? 'none (judge error)'],
          ['score', num(j.score)],
          ['reason', text(v.reason) ?? '—'],
          ...(j.error ? [['error', text(j.error) ?? ''] as [string, string]] : []),
          ['tokens', `${num(usage.prompt_tokens)} + ${num(usage.completion_tokens)}`],
        ],
      },
      { kind: 'text', title: `Judge ${scorer}: reply`, text: text(j.reply) ?? '(no reply: the request failed)' },
      {
        kind: 'text',
        title: `Judge ${scorer}: prompt`,
        text: `${text(prompt.system) ?? ''}\n\n${text(prompt.user) ?? ''}`.trim(),
      },
    ];
  });
}
