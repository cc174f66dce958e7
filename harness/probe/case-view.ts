import {
  arr,
  type CaseInput,
  type CaseView,
  callsText,
  num,
  type Obj,
  obj,
  pretty,
  type ScorerView,
  type Section,
  type SuiteCase,
  tagsOf,
  text,
} from '../kit/case-view/index.ts';

// The probe's tiers and layers as its metas name them; BFCL's case view shows its own with the same two helpers.
const TIERS = ['strict', 'lenient'] as const;
const LAYERS = ['parse_ok', 'schema_valid', 'tool_correct', 'args_correct', 'abstained', 'false_trigger'] as const;

/** One scorer per tier and layer scored, with the tier's problems and mismatches as the reason. */
export function layerScorers(layers: Obj): ScorerView[] {
  return TIERS.flatMap((tier) => {
    const l = obj(layers[tier]);
    if (!layers[tier]) return [];
    const why = [...arr(l.problems), ...arr(l.mismatches)].map((p) => text(p)).join('; ');
    return LAYERS.filter((k) => l[k] !== undefined).map((k) => ({
      name: `${tier} ${k}`,
      value: num(l[k]),
      reason: why || null,
    }));
  });
}

/** The attribution of each tier: cause, kind and evidence. */
export function attributionTable(cause: Obj): Section {
  return {
    kind: 'table',
    title: 'Attribution per tier, with its evidence',
    head: ['tier', 'cause', 'kind', 'evidence'],
    rows: TIERS.filter((t) => cause[t]).map((t) => [
      t,
      text(obj(cause[t]).cause) ?? '—',
      text(obj(cause[t]).kind) ?? '',
      text(obj(cause[t]).evidence) ?? '',
    ]),
  };
}

/** The calls parsed per tier, one row each. */
export function callsPerTier(calls: Obj): Section {
  return {
    kind: 'table',
    title: 'Calls parsed per tier',
    head: ['tier', 'calls'],
    rows: TIERS.filter((x) => calls[x]).map((x) => [x, callsText(calls[x]) || '(no call)']),
  };
}

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
