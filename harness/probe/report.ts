import { compareIds } from '../report/aggregate.ts';
import { fenced, fmtEstimate, headerBlock, mdText, table } from '../report/markdown.ts';
import { flattenMetrics, type EstimateJson, type Summary } from '../report/summary.ts';
import { clusterBootstrapRate, estimateRate, type MetricEstimate } from '../stats/index.ts';
import { CAUSES, TIERS, VERDICT_KINDS, type Tier } from '../calls/attribute/index.ts';
import { CATEGORY_NAMES } from './cases/types.ts';
import { CALL_LAYERS, LAYERED_METRICS, METRIC_DENOMINATORS, type LayeredMetric } from '../calls/score/index.ts';
import type { ProbeMeta } from './run/types.ts';
import { axesSections, layerReadingsSection, toolhoundTreeSection } from './arms-markdown.ts';

/**
 * Probe numbers from the tests' meta (pure: the reporter, `toolgauge report` and merged shard reports compute the
 * same), and report.md. Headline metrics are the strict tier — what the serving stack delivers (chat: the
 * server's own tool_calls); `lenient.*` is what a forgiving parser would recover. Harness errors are left out of
 * every rate and counted apart.
 */

export interface ProbeAggregate {
  metrics: Record<string, MetricEstimate>;
  breakdowns: Record<string, Record<string, Record<string, MetricEstimate>>>;
  counts: Record<string, number>;
  errors: Array<{ id: string; trial: number; error: string }>;
  extra: Record<string, unknown>;
}

export const only = (metas: readonly unknown[]): ProbeMeta[] =>
  metas.filter((m): m is ProbeMeta => (m as ProbeMeta).suite === 'probe');

export type Value = (m: ProbeMeta) => number | null;

/** Trials averaged per case; cases without a value (not in the denominator) dropped. */
export function perCase(metas: readonly ProbeMeta[], value: Value): Array<{ id: string; family: string; x: number }> {
  const by = new Map<string, { family: string; xs: number[] }>();
  for (const m of metas) {
    if (m.error) continue;
    const x = value(m);
    if (x === null) continue;
    const e = by.get(m.id) ?? { family: m.family, xs: [] };
    e.xs.push(x);
    by.set(m.id, e);
  }
  return [...by.entries()]
    .sort(([a], [b]) => compareIds(a, b))
    .map(([id, e]) => ({ id, family: e.family, x: e.xs.reduce((s, v) => s + v, 0) / e.xs.length }));
}

/**
 * A rate with its CI. Cases of one family (one phrasing template, different slots) are correlated, so with
 * enough families the interval is a cluster bootstrap over families; otherwise estimateRate's rule (Wilson for
 * small or extreme 0/1 data, else the percentile bootstrap) — which treats cases as independent.
 */
export function probeRate(
  items: ReadonlyArray<{ family: string; x: number }>,
  denominator: string,
  seed: number,
): MetricEstimate {
  const xs = items.map((i) => i.x);
  const fams = items.map((i) => i.family);
  const groups = new Set(fams).size;
  const binary = xs.every((x) => x === 0 || x === 1);
  const k = xs.reduce((s, x) => s + x, 0);
  const extreme = binary && Math.min(k, xs.length - k) < 10;
  if (groups >= 5 && groups < xs.length && !extreme)
    return clusterBootstrapRate(xs, fams, { denominator: `${denominator}; clustered by case family`, seed });
  return estimateRate(xs, { denominator, seed });
}

const scoreOf =
  (tier: Tier, metric: LayeredMetric): Value =>
  (m) =>
    m.scores?.[tier][metric] ?? null;
const passedOf =
  (tier: Tier): Value =>
  (m) =>
    m.passed[tier] ? 1 : 0;

export function tierMetrics(
  metas: readonly ProbeMeta[],
  tier: Tier,
  seed: number,
  prefix: string,
): Record<string, MetricEstimate> {
  const out: Record<string, MetricEstimate> = {};
  out[`${prefix}accuracy`] = probeRate(perCase(metas, passedOf(tier)), 'cases (call-expected and abstention)', seed);
  for (const metric of LAYERED_METRICS)
    out[`${prefix}${metric}`] = probeRate(perCase(metas, scoreOf(tier, metric)), METRIC_DENOMINATORS[metric], seed);
  return out;
}

export function aggregateProbe(all: readonly unknown[], seed: number): ProbeAggregate {
  const metas = only(all).sort((a, b) => compareIds(a.id, b.id) || a.trial - b.trial);
  const ok = metas.filter((m) => !m.error);

  const metrics: Record<string, MetricEstimate> = {
    ...tierMetrics(metas, 'strict', seed, ''),
    ...tierMetrics(metas, 'lenient', seed, 'lenient.'),
    error_rate: probeRate(
      [...new Map(metas.map((m) => [m.id, m.family])).entries()].map(([id, family]) => {
        const ts = metas.filter((m) => m.id === id);
        return { family, x: ts.filter((m) => m.error).length / ts.length };
      }),
      'cases',
      seed,
    ),
  };
  for (const tier of TIERS) {
    for (const cause of CAUSES)
      metrics[`attribution.${tier}.${cause}`] = probeRate(
        perCase(metas, (m) => (m.cause[tier].cause === cause ? 1 : 0)),
        'cases',
        seed,
      );
  }

  const cats = [...new Set(metas.map((m) => m.cat))].sort(compareIds);
  const category: Record<string, Record<string, MetricEstimate>> = {};
  for (const cat of cats) {
    const ms = metas.filter((m) => m.cat === cat);
    category[cat] = { ...tierMetrics(ms, 'strict', seed, ''), ...tierMetrics(ms, 'lenient', seed, 'lenient.') };
  }

  const tally = (tier: Tier, key: 'cause' | 'kind') => {
    const out: Record<string, number> = {};
    for (const m of ok) {
      const v = m.cause[tier];
      const k = key === 'cause' ? (v.cause ?? (v.kind === 'pass' ? 'passed' : v.kind)) : v.kind;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };
  const attribution = Object.fromEntries(TIERS.map((t) => [t, tally(t, 'cause')]));
  const kinds = Object.fromEntries(TIERS.map((t) => [t, tally(t, 'kind')]));

  const failures = ok
    .filter((m) => !m.passed.strict || !m.passed.lenient)
    .slice(0, 200)
    .map((m) => ({
      id: m.id,
      trial: m.trial,
      cat: m.cat,
      strict: m.cause.strict,
      lenient: m.cause.lenient,
      expected: m.expected,
      actual: m.parse ? { strict: m.parse.strict.calls, lenient: m.parse.lenient.calls } : null,
      output: excerpt(m.output?.content ?? null, 400),
      tool_calls: m.output?.tool_calls ?? [],
    }));
  const examples: Record<string, unknown> = {};
  for (const cause of CAUSES) {
    const m = ok.find((x) => x.cause.strict.cause === cause) ?? ok.find((x) => x.cause.lenient.cause === cause);
    if (m)
      examples[cause] = {
        id: m.id,
        cat: m.cat,
        evidence: (m.cause.strict.cause === cause ? m.cause.strict : m.cause.lenient).evidence,
        output: excerpt(m.output?.content ?? null, 800),
        tool_calls: m.output?.tool_calls ?? [],
        expected: m.expected,
        counterfactual_output: m.counterfactual ? excerpt(m.counterfactual.output, 400) : null,
      };
  }

  const ids = new Set(metas.map((m) => m.id));
  return {
    metrics,
    breakdowns: { category },
    counts: {
      instances: ids.size,
      runs: metas.length,
      passed: ok.filter((m) => m.passed.strict).length,
      passed_lenient: ok.filter((m) => m.passed.lenient).length,
      failed: ok.filter((m) => !m.passed.strict).length,
      errors: metas.filter((m) => m.error).length,
      call_expected: ok.filter((m) => m.expects_call).length,
      abstention: ok.filter((m) => !m.expects_call).length,
      counterfactuals: ok.filter((m) => m.counterfactual).length,
      template_flips: ok.filter(
        (m) => m.cause.strict.kind === 'template_flip' || m.cause.lenient.kind === 'template_flip',
      ).length,
      not_rendered: ok.filter((m) => !m.output).length,
      resumed: metas.filter((m) => m.resumed).length,
    },
    errors: metas.filter((m) => m.error).map((m) => ({ id: m.id, trial: m.trial, error: m.error! })),
    extra: {
      attribution,
      attribution_kinds: kinds,
      categories: Object.fromEntries(cats.map((c) => [c, CATEGORY_NAMES[c] ?? c])),
      transports: [...new Set(metas.map((m) => m.transport))],
      failures,
      examples,
    },
  };
}

/** Per-case outcome of each metric (trials averaged), for paired comparisons of runs on the same cases. */
export function probeOutcomes(all: readonly unknown[]): Record<string, Map<string, number>> {
  const metas = only(all);
  const out: Record<string, Map<string, number>> = {};
  // A metric no case of this run is in the denominator of is left out (nothing to pair).
  const put = (name: string, v: Value) => {
    const m = new Map(perCase(metas, v).map((p) => [p.id, p.x]));
    if (m.size > 0) out[name] = m;
  };
  for (const tier of TIERS) {
    const prefix = tier === 'strict' ? '' : 'lenient.';
    put(`${prefix}accuracy`, passedOf(tier));
    for (const metric of LAYERED_METRICS) put(`${prefix}${metric}`, scoreOf(tier, metric));
  }
  return out;
}

function excerpt(s: string | null, max: number): string | null {
  if (s === null) return null;
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

// ---------------------------------------------------------------------------------------------------------
// report.md

const CAUSE_LABEL: Record<string, string> = {
  framework_template_bug: 'framework: chat template bug',
  framework_parser_gap: 'framework: parser gap',
  model_format_failure: 'model: format failure',
  model_decision_failure: 'model: decision failure',
};
const KIND_LABEL: Record<string, string> = {
  template_flip: 'template repair flips the outcome',
  parser_gap: 'call only the lenient tier recovers',
  truncated: 'truncated call',
  unparseable: 'unparseable call attempt',
  no_call_attempted: 'no call attempted',
  false_trigger: 'call where none was expected',
  wrong_tool: 'wrong tool(s)',
  wrong_args: 'wrong arguments',
  schema_invalid: 'schema-invalid arguments',
  not_rendered: 'template could not render the case',
};

const short = (v: unknown, max = 120): string => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s === undefined ? '—' : s.length > max ? `${s.slice(0, max)}…` : s;
};
const callsText = (calls: Array<{ name: string; arguments: unknown }> | null | undefined) =>
  !calls || calls.length === 0 ? '(none)' : calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(', ');

type Template = {
  file?: string;
  sha256?: string;
  family?: string | null;
  findings?: Array<{ id: string; detail: string; repro?: unknown }>;
  repaired_sha256?: string | null;
  engine_limitations?: string[];
};

type ModelCfg = {
  label: string;
  model: string;
  simulated?: boolean;
  server?: string | null;
  constraint?: string | null;
  template_sha256?: string | null;
  quantization?: string | null;
  quantization_of?: string | null;
  identity?: { tokenizer?: { id: string; source: string } | null } | null;
  endpoint?: { server_version?: string | null; model_revision?: string | null } | null;
  repo?: string | null;
  revision?: string | null;
};

/** The models and what their endpoints said about themselves (server version, model revision: where exposed). */
function endpointsTable(cfg: Record<string, unknown>): string[] {
  const models = ((cfg.axes as { models?: ModelCfg[] } | undefined)?.models ?? []) as ModelCfg[];
  if (!models.length) return [];
  const shown = (v: string | null | undefined) => (v ? v : '—');
  return [
    table(
      [
        'model',
        'server',
        'server version',
        'model revision',
        'template sha256',
        'tokenizer',
        'constraint',
        'quantization',
      ],
      models.map((m) => [
        m.label === m.model ? m.model : `${m.label} (${m.model})`,
        m.simulated ? 'toolgauge simulator' : shown(m.server),
        shown(m.endpoint?.server_version),
        shown(m.endpoint?.model_revision ?? (m.repo ? `${m.repo}@${m.revision ?? 'unpinned'}` : m.revision)),
        m.template_sha256 ? `${m.template_sha256.slice(0, 16)}…` : '—',
        m.identity?.tokenizer ? `${m.identity.tokenizer.id} (${m.identity.tokenizer.source})` : '—',
        m.constraint ?? '—',
        m.quantization ? `${m.quantization}${m.quantization_of ? ` of ${m.quantization_of}` : ''}` : '—',
      ]),
    ),
    '',
  ];
}

/** What every section of the probe report reads. */
interface ReportView {
  s: Summary;
  flat: Record<string, EstimateJson>;
  cfg: Record<string, unknown>;
  tpl: Template | null | undefined;
}

/** report.md of a probe run: a table of sections, each a small function of the summary. */
export function probeMarkdown(s: Summary): string {
  const cfg = s.config as Record<string, unknown>;
  const v: ReportView = { s, flat: flattenMetrics(s.metrics), cfg, tpl: cfg.template as Template | null | undefined };
  return [headerBlock(`Probe — ${s.header.model}`, s), ...PROBE_SECTIONS.flatMap((section) => section(v))].join('\n');
}

const PROBE_SECTIONS: ReadonlyArray<(v: ReportView) => string[]> = [
  function simulatorNote({ s }) {
    if (!s.notice) return [];
    if (s.notice.startsWith('TEST MODEL'))
      return [
        "> A test model has random weights: on a real engine it shows the axes' mechanics (what a grammar forces, what quantization changes in the next-token distributions), never how well a model calls tools.",
        '',
      ];
    return [
      '> The simulator is a calibration fixture: it knows every expected call and plants one chosen behaviour (oracle, or one failure cause), so that the scoring and the attribution can be checked against a known truth. Its numbers describe the harness, not a model.',
      '',
    ];
  },
  function settings({ s, cfg, tpl }) {
    const c = s.counts;
    return [
      table(
        ['setting', 'value'],
        [
          ['transport', String(cfg.transport ?? '—')],
          [
            'cases',
            `${String(cfg.cases_file ?? '—')}${cfg.split && cfg.split !== 'all' ? ` (split ${String(cfg.split)})` : ''}`,
          ],
          ['tool palette', String(cfg.tools_file ?? '—')],
          [
            'template',
            tpl
              ? `${tpl.file} (sha256 ${String(tpl.sha256).slice(0, 16)}…, family ${tpl.family ?? 'unknown'})`
              : cfg.transport === 'chat'
                ? "the server's (unknown to toolgauge: no counterfactual re-asks)"
                : '—',
          ],
          ['parser family', String(cfg.family ?? 'auto')],
        ],
      ),
      '',
      ...endpointsTable(cfg),
      `${c.instances} cases (${c.runs} runs): ${c.passed} pass as served (strict), ${c.passed_lenient} with the lenient parser; ${c.errors} harness errors${c.resumed ? `; ${c.resumed} taken from an earlier run (--resume)` : ''}${c.arm_runs ? ` (${c.arm_runs} runs over ${c.arms} arms; the counts above are the reference arm's, the errors every arm's)` : ''}.`,
      '',
    ];
  },
  function layered({ flat }) {
    return [
      '## Layered scores',
      '',
      "Each layer has its own denominator. **strict** = what the serving stack delivers (chat: the server's `tool_calls`; completions: the family's native format only); **lenient** = what a forgiving parser recovers.",
      '',
      table(
        ['metric', 'strict [95% CI]', 'n', 'lenient [95% CI]', 'n', 'denominator'],
        ['accuracy', ...LAYERED_METRICS].map((m) => {
          const a = flat[m];
          const b = flat[`lenient.${m}`];
          return [m, fmtEstimate(a), a?.n ?? 0, fmtEstimate(b), b?.n ?? 0, a?.denominator ?? ''];
        }),
      ),
      '',
      '`abstained` and `false_trigger` share their denominator (abstention cases) and add up to 1; `no_call` counts call-expected cases where nothing call-like was produced.',
      '',
    ];
  },
  ({ s }) => layerReadingsSection(s),
  function attributionSection({ s, flat }) {
    const c = s.counts;
    const attribution = (s.extra.attribution ?? {}) as Record<Tier, Record<string, number>>;
    const kinds = (s.extra.attribution_kinds ?? {}) as Record<Tier, Record<string, number>>;
    const failed = (t: Tier) =>
      Object.entries(attribution[t] ?? {})
        .filter(([k]) => k !== 'passed')
        .reduce((a, [, n]) => a + n, 0);
    const share = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)}%` : '—');
    return [
      '## Attribution',
      '',
      'The cause of each failing case, decided per case under each parser tier. A template is blamed only when re-rendering the case with the repaired template flips its outcome (counterfactual), never for a whole model.',
      '',
      table(
        [
          'cause',
          'strict: cases',
          'share of failures',
          'lenient: cases',
          'share of failures',
          'rate (strict) [95% CI]',
        ],
        CAUSES.map((cause) => {
          const a = attribution.strict?.[cause] ?? 0;
          const b = attribution.lenient?.[cause] ?? 0;
          return [
            CAUSE_LABEL[cause]!,
            a,
            share(a, failed('strict')),
            b,
            share(b, failed('lenient')),
            fmtEstimate(flat[`attribution.strict.${cause}`]),
          ];
        }),
      ),
      '',
      table(
        ['detail', 'strict', 'lenient'],
        VERDICT_KINDS.filter(
          (k) => k !== 'pass' && ((kinds.strict?.[k] ?? 0) > 0 || (kinds.lenient?.[k] ?? 0) > 0),
        ).map((k) => [KIND_LABEL[k] ?? k, kinds.strict?.[k] ?? 0, kinds.lenient?.[k] ?? 0]),
      ),
      '',
      `Counterfactual re-asks: ${c.counterfactuals ?? 0}; outcome flipped by the repaired template: ${c.template_flips ?? 0}.${c.not_rendered ? ` Cases the template could not render: ${c.not_rendered}.` : ''}`,
      '',
    ];
  },
  ({ s }) => toolhoundTreeSection(s),
  function byCategory({ s }) {
    const byCat = s.breakdowns.category ?? {};
    const names = (s.extra.categories ?? {}) as Record<string, string>;
    if (!Object.keys(byCat).length) return [];
    const cell = (ms: Summary['metrics'], k: string) => {
      const e = flattenMetrics(ms)[k];
      return e && e.value !== null ? `${e.value.toFixed(2)} (${e.n})` : '—';
    };
    const cols = ['accuracy', ...CALL_LAYERS, 'lenient.accuracy'];
    return [
      '## By category',
      '',
      'Value (n) per layer, strict tier; the last column is the lenient accuracy.',
      '',
      table(
        ['category', ...cols.slice(0, -1), 'lenient accuracy'],
        Object.entries(byCat).map(([cat, ms]) => [
          `${cat} ${names[cat] ?? ''}`.trim(),
          ...cols.map((k) => cell(ms, k)),
        ]),
      ),
      '',
    ];
  },
  function template({ tpl }) {
    if (!tpl) return [];
    const out = [
      '## Chat template',
      '',
      `\`${tpl.file}\` — sha256 \`${tpl.sha256}\`, family ${tpl.family ?? 'unknown'}.`,
      '',
    ];
    if (tpl.findings?.length) {
      out.push(
        table(
          ['finding', 'detail'],
          tpl.findings.map((f) => [f.id, short(f.detail, 300)]),
        ),
        '',
      );
      out.push(
        tpl.repaired_sha256
          ? `Repaired template for counterfactual re-asks: sha256 \`${tpl.repaired_sha256}\`.`
          : 'No repaired template is available for this family: failing cases cannot be re-asked, and the template is never blamed without that evidence.',
        '',
      );
    } else
      out.push(
        'No findings: the template keeps prior calls, renders tools, injects no date and renders every standard shape.',
        '',
      );
    if (tpl.engine_limitations?.length)
      out.push(`Engine limitations (not template defects): ${mdText(tpl.engine_limitations.join('; '))}`, '');
    return out;
  },
  ({ s }) => axesSections(s),
  function charts({ s }) {
    const shown = new Set(['charts/decode.svg', 'charts/lineup.svg']);
    return Object.entries((s.extra.charts ?? {}) as Record<string, string>)
      .filter(([, file]) => !shown.has(file))
      .flatMap(([label, file]) => [`![${label}](${file})`, '']);
  },
  function failing({ s }) {
    const failures = (s.extra.failures ?? []) as Array<{
      id: string;
      cat: string;
      strict: { cause: string | null; kind: string };
      lenient: { cause: string | null; kind: string };
      expected: unknown;
      actual: {
        strict: Array<{ name: string; arguments: unknown }>;
        lenient: Array<{ name: string; arguments: unknown }>;
      } | null;
    }>;
    if (!failures.length) return [];
    return [
      '## Failing cases',
      '',
      table(
        ['case', 'cause (strict)', 'cause (lenient)', 'expected', 'actual (strict / lenient)'],
        failures
          .slice(0, 60)
          .map((f) => [
            `${f.cat} ${f.id}`,
            `${f.strict.cause ?? '—'} / ${f.strict.kind}`,
            `${f.lenient.cause ?? '—'} / ${f.lenient.kind}`,
            f.expected === null ? '(no call)' : short(callsText(f.expected as never), 100),
            f.actual
              ? `${short(callsText(f.actual.strict), 80)} / ${short(callsText(f.actual.lenient), 80)}`
              : '(not asked)',
          ]),
      ),
      ...(failures.length > 60 ? ['', '… and more in cases.jsonl.'] : []),
      '',
    ];
  },
  function repros({ s, tpl }) {
    const examples = (s.extra.examples ?? {}) as Record<
      string,
      {
        id: string;
        evidence: string;
        output: string | null;
        tool_calls: unknown[];
        counterfactual_output: string | null;
      }
    >;
    if (!Object.keys(examples).length) return [];
    const out = ['## Minimal repros to file upstream', ''];
    for (const cause of CAUSES) {
      const e = examples[cause];
      if (!e) continue;
      out.push(`### ${CAUSE_LABEL[cause]} — ${mdText(e.id)}`, '', mdText(e.evidence), '');
      if (cause === 'framework_template_bug' && tpl?.findings?.length) {
        const f = tpl.findings[0]!;
        out.push(
          `Template finding \`${f.id}\` with its minimal repro (messages and tools rendered by the template):`,
          '',
          fenced(JSON.stringify(f.repro ?? null, null, 1).slice(0, 2000), 'json'),
          '',
        );
      }
      if (e.output !== null)
        out.push(
          cause === 'framework_parser_gap'
            ? 'Model output the strict parser / server did not turn into a call:'
            : 'Model output:',
          '',
          fenced(e.output || '(empty)', 'text'),
          '',
        );
      if (e.tool_calls.length) out.push('Server tool_calls:', '', fenced(JSON.stringify(e.tool_calls), 'json'), '');
      if (e.counterfactual_output)
        out.push('Output with the repaired template:', '', fenced(e.counterfactual_output, 'text'), '');
    }
    return out;
  },
  function harnessErrors({ s }) {
    if (!s.errors.length) return [];
    return [
      '## Harness errors',
      '',
      table(
        ['id', 'trial', 'error'],
        s.errors.slice(0, 50).map((e) => [e.id, e.trial, e.error.slice(0, 200)]),
      ),
      ...(s.errors.length > 50 ? ['', `… and ${s.errors.length - 50} more (see cases.jsonl).`] : []),
      '',
    ];
  },
  function files() {
    return [
      'Files: `cases.jsonl` (per case: raw output, transport, parse tier, layered scores, cause under each tier, template hash), `summary.json`, `instances.jsonl`.',
      '',
    ];
  },
];
