import {
  arr,
  type CaseInput,
  type CaseView,
  callsText,
  num,
  obj,
  pretty,
  type Section,
  type SuiteCase,
  tagsOf,
  text,
} from '../kit/case-view/index.ts';
import { attributionTable, layerScorers, TIERS } from '../kit/case-view/calls.ts';

/** The probe in `toolgauge view`: the raw output, its parse per tier, the layers scored, the attribution with its evidence. */
function probeCase(input: CaseInput): SuiteCase {
  const m = input.meta;
  const out = obj(m.output);
  const parse = obj(m.parse);
  const raw = [
    text(out.content) ? `content:\n${text(out.content)}` : 'content: (none)',
    out.tool_calls ? `tool_calls:\n${pretty(out.tool_calls)}` : null,
    out.finish_reason ? `finish_reason: ${text(out.finish_reason)}` : null,
  ]
    .filter(Boolean)
    .join('\n\n');
  const sections: Section[] = [
    { kind: 'text', title: 'Raw output', text: raw },
    {
      kind: 'table',
      title: 'Parse per tier',
      head: ['tier', 'attempted', 'truncated', 'parsed by', 'format', 'calls', 'notes'],
      rows: TIERS.filter((t) => parse[t]).map((t) => {
        const p = obj(parse[t]);
        return [
          t,
          String(p.attempted ?? ''),
          String(p.truncated ?? ''),
          text(p.tier) ?? '',
          text(p.format) ?? '',
          callsText(p.calls) || '(no call)',
          arr(p.notes)
            .map((n) => text(n))
            .join('; '),
        ];
      }),
    },
    attributionTable(obj(m.cause)),
    {
      kind: 'pairs',
      title: 'Request',
      rows: [
        ['model', text(m.model) ?? ''],
        ['transport', text(m.transport) ?? ''],
        ['arm', text(m.arm) ?? ''],
        ['latency ms', num(m.latency_ms)],
        ['attempts', num(m.attempts)],
        ['tokens', `${num(obj(m.usage).prompt_tokens)} + ${num(obj(m.usage).completion_tokens)}`],
        ['template sha256', text(m.template_sha256) ?? '—'],
      ],
    },
  ];
  if (arr(m.template_findings).length)
    sections.push({ kind: 'json', title: 'Template findings', json: pretty(m.template_findings) });
  if (m.counterfactual) sections.push({ kind: 'json', title: 'Counterfactual', json: pretty(m.counterfactual) });
  const strict = obj(obj(m.cause).strict);
  return {
    tags: tagsOf([
      ['cat', m.cat],
      ['family', m.family],
      ['split', m.split],
    ]),
    cause: text(strict.cause) ?? (strict.kind && strict.kind !== 'pass' ? text(strict.kind) : null),
    input: null,
    expected: m.expects_call === false ? '(no call expected)' : callsText(m.expected),
    predicted: callsText(obj(parse.strict).calls) || (text(out.content) ?? ''),
    scorers: layerScorers(obj(m.scores)),
    sections,
    problems: [],
  };
}

export const probeCaseView: CaseView = { map: probeCase };
