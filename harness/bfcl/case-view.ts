import {
  arr,
  type CaseInput,
  type CaseProblem,
  type CaseView,
  conversationSections,
  obj,
  type ScorerView,
  type Section,
  type SuiteCase,
  tagsOf,
  text,
} from '../kit/case-view/index.ts';
import { attributionTable, callsPerTier, layerScorers } from '../kit/case-view/calls.ts';

/** BFCL in `toolgauge view`: BFCL's own verdict beside toolgauge's layers and attribution, and the conversation. */
function bfclCase(input: CaseInput): SuiteCase {
  const m = input.meta;
  const t = obj(input.trace);
  const tg = obj(t.toolgauge);
  const problems: CaseProblem[] = [];
  const sections: Section[] = [
    {
      kind: 'pairs',
      title: "BFCL's verdict",
      rows: [
        ['valid', String(m.valid ?? '—')],
        ['error type', text(m.error_type) || '—'],
        ['error', text(m.bfcl_error) ?? '—'],
        ['crash', text(m.crash) ?? '—'],
        ['undecided', text(m.undecided) ?? '—'],
        ['deviation from toolgauge', text(m.deviation) ?? '—'],
      ],
    },
  ];
  if (tg.attribution) sections.push(attributionTable(obj(tg.attribution)));
  if (tg.calls) sections.push(callsPerTier(obj(tg.calls)));
  if (input.trace) sections.push(...conversationSections('Transcript', t.messages, t.model_calls, 'trace', problems));
  const firstUser = arr(t.messages).find((x) => obj(x).role === 'user');
  const verdict = obj(m.toolgauge);
  const scorers: ScorerView[] = [
    {
      name: 'BFCL valid',
      value: m.error ? 'error' : m.valid ? '1' : '0',
      reason: [text(m.error_type), text(m.bfcl_error)].filter(Boolean).join(': ') || null,
    },
    { name: "toolgauge's verdict", value: verdict.pass ? '1' : '0', reason: text(verdict.evidence) },
    ...layerScorers(obj(m.layers)),
  ];
  return {
    tags: tagsOf([['category', m.category]]),
    cause: text(verdict.cause) ?? (verdict.kind && verdict.kind !== 'pass' ? text(verdict.kind) : null),
    input: firstUser ? text(obj(firstUser).content) : null,
    expected: null,
    predicted: t.result === undefined ? null : JSON.stringify(t.result),
    scorers,
    sections,
    problems,
  };
}

export const bfclCaseView: CaseView = { map: bfclCase };
