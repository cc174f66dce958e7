/**
 * report.md sections for the axes of a probe run (from summary.json alone): the two layer readings, attribution
 * under Toolhound's decision tree, the arms, the decode and method comparisons, the lineup and the pairwise model
 * comparisons. Verdicts come worded from the aggregate (improved / worse / no credible change).
 */
import { fmtEstimate, mdText, table } from '../report/markdown.ts';
import { flattenMetrics, type Summary } from '../report/summary.ts';
import type { ComparisonJson, LineupRow } from './arms-report.ts';
import { answeredBy, LINEUP_CAVEAT } from './answered-by.ts';
import { REFINEMENTS, TOOLHOUND_CAUSES } from './axes/attribution-tree.ts';
import { CONDITION, conditionalName, LAYERS, toolhoundName } from './axes/rates.ts';

type Axes = {
  decode: string[];
  method: string[];
  model: string[];
  reference: string;
  varying: string[];
  arms: Array<{ label: string; runs: number; errors: number; mechanisms: string[] }>;
};

/** A table of cells toolgauge wrote itself (numbers, intervals): only data-borne cells are escaped, by the caller. */
function rawTable(headers: string[], rows: string[][]): string {
  return [
    `| ${headers.join(' | ')} |`,
    `| ${headers.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

const f3 = (x: number | null) => (x === null ? '—' : x.toFixed(3));
const cellOf = (e: { value: number | null; lo: number | null; hi: number | null; n: number } | undefined) =>
  !e || e.value === null ? '—' : `${f3(e.value)} [${f3(e.lo)}, ${f3(e.hi)}] (${e.n})`;

/** Both readings of each layer side by side, strict tier (what the serving stack delivers). */
export function layerReadingsSection(s: Summary): string[] {
  const flat = flattenMetrics(s.metrics);
  if (!flat[`layers.${toolhoundName('parse_ok')}`]) return [];
  return [
    '### Layer readings (named apart)',
    '',
    "**Toolhound's reading** `layers.<layer>.over_call_expected`: over every case that expects a call, the share that reached *and* passed the layer (an unparsed call counts 0 at every layer). **toolgauge's reading** `layers.<layer>.given_<previous>`: over the cases that passed the previous layer only. They agree at `parse_ok`; the unsuffixed `schema_valid`, `tool_correct` and `args_correct` above are toolgauge's conditional reading. Compare a reading only with the same reading.",
    '',
    table(
      ['layer', 'Toolhound: over call-expected [95% CI]', 'n', 'toolgauge: conditional [95% CI]', 'given', 'n'],
      LAYERS.map((l) => {
        const a = flat[`layers.${toolhoundName(l)}`];
        const b = flat[`layers.${conditionalName(l)}`];
        return [l, fmtEstimate(a), a?.n ?? 0, fmtEstimate(b), CONDITION[l] ?? 'call expected', b?.n ?? 0];
      }),
    ),
    '',
  ];
}

/** Attribution under Toolhound's decision tree (the comparable default), toolgauge's refinements as columns. */
export function toolhoundTreeSection(s: Summary): string[] {
  const t = s.extra.attribution_tree as
    | {
        toolhound: Record<string, number>;
        by_cause?: Record<string, Record<string, number>>;
        crosstab: Record<string, Record<string, number>>;
        template_sane: boolean;
      }
    | undefined;
  if (!t) return [];
  const tg = [...new Set(Object.values(t.crosstab).flatMap((r) => Object.keys(r)))].sort();
  return [
    "### Attribution under Toolhound's decision tree",
    '',
    "The numbers comparable with Toolhound's: template check → strict (framework) parse → lenient rescue → scorer, one verdict per case. toolgauge's refinements are counted as columns (a case may have several); the cross-table shows where toolgauge's per-case verdict (above) differs. See harness/probe/axes/README.md for why they differ.",
    '',
    table(
      ['cause (Toolhound tree)', 'cases', ...REFINEMENTS],
      TOOLHOUND_CAUSES.map((c) => [c, t.toolhound[c] ?? 0, ...REFINEMENTS.map((k) => t.by_cause?.[c]?.[k] ?? 0)]),
    ),
    '',
    `Template sanity (Toolhound's step B, one answer per model): ${t.template_sane ? 'passes' : 'FAILS — Toolhound blames every case without a framework call on the template; toolgauge blames it only where the repaired template flips the case'}.`,
    '',
    ...(tg.length
      ? [
          table(
            ['Toolhound tree ↓ / toolgauge (strict) →', ...tg],
            TOOLHOUND_CAUSES.filter((c) => t.crosstab[c]).map((c) => [c, ...tg.map((x) => t.crosstab[c]![x] ?? 0)]),
          ),
          '',
        ]
      : []),
  ];
}

function comparisons(title: string, intro: string, cs: ComparisonJson[] | undefined, chart?: string): string[] {
  if (!cs?.length) return [];
  const out = [`## ${title}`, '', intro, ''];
  if (chart) out.push(`![${title}](${chart})`, '');
  for (const c of cs) out.push(c.markdown.trimEnd(), '');
  return out;
}

export function axesSections(s: Summary): string[] {
  const ax = s.extra.axes as Axes | undefined;
  if (!ax || ax.varying.length === 0) return [];
  const charts = (s.extra.charts ?? {}) as Record<string, string>;
  const out: string[] = [
    '## Arms',
    '',
    `Each case ran once per arm (${ax.varying.map((v) => `${v}: ${(ax as unknown as Record<string, string[]>)[v]!.join(', ')}`).join('; ')}), so arms are compared on the same cases. The headline numbers above are the reference arm's (${mdText(ax.reference)}); every arm's numbers are under \`breakdowns.arm\` in summary.json.`,
    '',
  ];
  const byArm = s.breakdowns.arm ?? {};
  const cell = (label: string, k: string) => fmtEstimate(flattenMetrics(byArm[label] ?? {})[k]);
  out.push(
    table(
      [
        'arm',
        'runs',
        'errors',
        'accuracy',
        'parse_ok',
        'args_correct.over_call_expected',
        'no_call',
        'false_trigger',
        'truncated',
        'constraint',
      ],
      ax.arms.map((a) => [
        a.label,
        a.runs,
        a.errors,
        cell(a.label, 'accuracy'),
        cell(a.label, 'parse_ok'),
        cell(a.label, 'layers.args_correct.over_call_expected'),
        cell(a.label, 'no_call'),
        cell(a.label, 'false_trigger'),
        cell(a.label, 'truncated'),
        a.mechanisms.join('; ') || '—',
      ]),
    ),
    '',
  );
  out.push(
    ...comparisons(
      'Decode comparison',
      'Free → constrained decoding, per layer, paired on the cases both arms ran. Constrained decoding is meant to fix syntax (parse, schema) and cannot fix a decision (tool, arguments); its cost shows in `truncated` and `repetition`.',
      s.extra.decode_comparisons as ComparisonJson[] | undefined,
      charts['Decode comparison: free vs constrained, per layer'],
    ),
    ...comparisons(
      'Method comparison',
      "Baseline → method, paired on the cases both arms ran; a method's calls are mapped back to the original schema before scoring, so both arms are scored on the same cases, schemas and rules.",
      s.extra.method_comparisons as ComparisonJson[] | undefined,
    ),
  );
  const lineup = s.extra.lineup as LineupRow[] | null | undefined;
  if (lineup?.length) {
    const metrics = Object.keys(lineup[0]!.metrics);
    const cats = [...new Set(lineup.flatMap((r) => Object.keys(r.categories)))].sort();
    out.push(
      '## Lineup',
      '',
      `One row per model, at the reference decode and method; value [95% CI] (n). \`.over_call_expected\` is Toolhound's reading, \`.given_*\` toolgauge's conditional one.${LINEUP_CAVEAT[answeredBy(s)]}`,
      '',
      rawTable(
        [
          'model',
          ...metrics,
          ...cats.map((c) => `${c} accuracy`),
          ...TOOLHOUND_CAUSES.filter((c) => c !== 'pass').map((c) => `Toolhound: ${c}`),
          ...REFINEMENTS.map((r) => `toolgauge: ${r}`),
        ],
        lineup.map((r) => [
          mdText(r.label),
          ...metrics.map((m) => cellOf(r.metrics[m])),
          ...cats.map((c) =>
            r.categories[c] && r.categories[c]!.value !== null
              ? `${f3(r.categories[c]!.value)} (${r.categories[c]!.n})`
              : '—',
          ),
          ...TOOLHOUND_CAUSES.filter((c) => c !== 'pass').map((c) => String(r.toolhound[c] ?? 0)),
          ...REFINEMENTS.map((k) => String(r.refinements[k] ?? 0)),
        ]),
      ),
      '',
      ...(charts['Lineup: accuracy per model'] ? [`![Lineup](${charts['Lineup: accuracy per model']})`, ''] : []),
    );
    out.push(
      ...comparisons(
        'Model comparisons',
        'Every pair of models, paired on the cases both ran. A pair labelled as a quantization (`quantization_of`) is compared only when both ran with the same chat template (sha256) and tokenizer.',
        s.extra.model_comparisons as ComparisonJson[] | undefined,
      ),
    );
  }
  return out;
}
