// report.md, the terminal summary and the charts of a BFCL run, from summary.json alone (so `toolgauge report DIR`
// renders the same): BFCL's scores with the leaderboard formula, the per-category table, toolgauge's layers and
// attribution, the "BFCL verdict vs toolgauge verdict" table, and the answer keys BFCL itself cannot pass.
import { fenced, fmtEstimate, headerBlock, mdText, table } from '../report/markdown.ts';
import { flattenMetrics, type EstimateJson, type Summary, noticeTag, summaryFooter } from '../report/summary.ts';
import { barChart, estimateBar } from '../report/svg.ts';
import type { Chart } from '../kit/types.ts';
import { ALL_CATEGORIES } from './categories.ts';

const GROUP_ORDER = ['non_live', 'simple_non_live', 'live', 'irrelevance', 'relevance', 'multi_turn'];

/** `accuracy.<category>` estimates in BFCL's category order. */
function categoryEstimates(flat: Record<string, EstimateJson>): Array<[string, EstimateJson]> {
  const rank = (c: string) => (ALL_CATEGORIES as readonly string[]).indexOf(c);
  return Object.entries(flat)
    .filter(([k]) => k.startsWith('accuracy.'))
    .map(([k, e]): [string, EstimateJson] => [k.slice('accuracy.'.length), e])
    .sort((a, b) => rank(a[0]) - rank(b[0]));
}

export const DEVIATION_NOTES: Record<string, string> = {
  greedy_parallel_matching:
    'BFCL pairs each answer, in order, with the first unmatched output it accepts; another pairing accepts every call',
  malformed_call_counted_as_abstention:
    'irrelevance: BFCL\'s decoder cannot read the call attempt and counts "no call"; toolgauge sees an attempt (false trigger)',
  abstention_turn_not_checked:
    'multi-turn: calls on a turn whose ground truth is empty (the model should ask back); BFCL never checks that turn',
  bfcl_decoder_refuses:
    "BFCL's decoder reads no call, toolgauge reads the right one (a parser gap when only the lenient tier finds it)",
  bfcl_accepts_what_toolgauge_rejects:
    "BFCL's value rules are looser (string normalisation, evaluated arithmetic, live_relevance calls that break the schema)",
  bfcl_rejects_what_toolgauge_accepts:
    "toolgauge's rules are looser (an extra argument the schema allows, positional arguments, 5.0 for an integer)",
};

/** The classes where BFCL passes and toolgauge fails (the others are the other way round). */
const BFCL_PASSES = new Set([
  'malformed_call_counted_as_abstention',
  'abstention_turn_not_checked',
  'bfcl_accepts_what_toolgauge_rejects',
]);

export const FORMULA = [
  'simple (non-live)  = mean(simple_python, simple_java, simple_javascript)                    unweighted',
  'non_live           = mean(simple, multiple, parallel, parallel_multiple)                     unweighted',
  'live               = Σ correct / Σ n over live_simple, live_multiple, live_parallel, live_parallel_multiple',
  'irrelevance        = mean(irrelevance, live_irrelevance)                                     unweighted',
  'multi_turn         = mean(base, miss_func, miss_param, long_context)                         unweighted',
  'agentic            = mean(web search, memory)                                   (not run by toolgauge: 0)',
  'overall            = 0.10·non_live + 0.10·live + 0.10·irrelevance + 0.30·multi_turn + 0.40·agentic',
  'overall_in_scope   = the same weights over the four groups run: (non_live + live + irrelevance + 3·multi_turn) / 6',
].join('\n');

const pct = (e: EstimateJson | undefined) =>
  e && e.value !== null
    ? `${(100 * e.value).toFixed(2)}% [${e.lo === null ? '—' : (100 * e.lo).toFixed(2)}, ${e.hi === null ? '—' : (100 * e.hi).toFixed(2)}]`
    : '—';

interface Extra {
  leaderboard?: { missing: string[] };
  per_category?: Record<string, Record<string, number>>;
  error_types?: Record<string, number>;
  deviations?: Record<string, number>;
  deviation_examples?: Array<{
    id: string;
    category: string;
    bfcl: string;
    toolgauge: string;
    class: string;
    note: string;
  }>;
  attribution?: Record<string, number>;
  unpassable?: Array<{
    id: string;
    category: string;
    valid: boolean;
    error_type: string;
    expected_error: string;
    why: string;
  }>;
  undecided_examples?: Array<{ id: string; why: string }>;
}

const modeLine = (cfg: Record<string, unknown>) =>
  cfg.mode === 'prompt'
    ? "prompt mode: BFCL's system prompt lists the functions; the model answers `[func(a=1)]`, decoded as BFCL decodes it"
    : 'FC mode: native tool calls (`tools`); names with `.` are sent with `_`, as BFCL does for OpenAI-compatible endpoints';

export function bfclMarkdown(s: Summary): string {
  const flat = flattenMetrics(s.metrics);
  const x = s.extra as Extra;
  const c = s.counts;
  const cfg = s.config;
  const parts = [headerBlock(`BFCL — ${s.header.model}`, s)];
  parts.push(
    `Mode: ${modeLine(cfg)}. Categories: ${mdText(((cfg.categories as string[] | undefined) ?? []).join(', '))}${cfg.limit ? ` (first ${String(cfg.limit)} per category)` : ''}${cfg.only ? ` (only ${(cfg.only as string[]).length} ids)` : ''}.`,
    '',
    "## BFCL's scores",
    '',
    table(
      ['score', 'value [95% CI]', 'n'],
      [
        ['overall', pct(flat.overall), flat.overall?.n ?? 0],
        ['overall_in_scope (toolgauge)', pct(flat.overall_in_scope), flat.overall_in_scope?.n ?? 0],
        ...GROUP_ORDER.filter((g) => flat[`group.${g}`]).map((g) => [
          g,
          pct(flat[`group.${g}`]),
          flat[`group.${g}`]!.n,
        ]),
      ],
    ),
    '',
    "As BFCL's leaderboard aggregates them (`eval_runner_helper.py`, `generate_leaderboard_csv`); a category not run counts 0:",
    '',
    fenced(FORMULA),
    '',
    'Intervals: each category by Wilson or the percentile bootstrap (`estimateRate`); the composites by a stratified, seeded percentile bootstrap (each category resampled within itself).',
    '',
  );
  const missing = x.leaderboard?.missing ?? [];
  if (missing.length)
    parts.push(
      `Not run (0 in the composites): ${missing.join(', ')}. BFCL's own overall is comparable with the leaderboard only on \`--category all_scoring\`, and tops out at 60% without the agentic categories.`,
      '',
    );

  parts.push('## Per category', '');
  const perCat = x.per_category ?? {};
  parts.push(
    table(
      [
        'category',
        'cases',
        'valid',
        'accuracy [95% CI]',
        "toolgauge's verdict",
        'undecided',
        'crashes',
        'harness errors',
        'deviations',
        'unpassable keys',
      ],
      Object.entries(perCat).map(([cat, n]) => {
        const b = s.breakdowns.category?.[cat] as
          | Record<string, EstimateJson | Record<string, EstimateJson>>
          | undefined;
        const tg = (b?.toolgauge as Record<string, EstimateJson> | undefined)?.accuracy;
        return [
          cat,
          n.cases!,
          n.valid!,
          pct(b?.accuracy as EstimateJson | undefined),
          pct(tg),
          n.undecided!,
          n.crashes!,
          n.errors!,
          n.deviations!,
          n.unpassable!,
        ];
      }),
    ),
    '',
  );
  if (c.undecided) {
    parts.push(
      `**${c.undecided} output(s) toolgauge cannot score exactly** (counted invalid above; \`undecided\` in beyond.jsonl)${cfg.mode === 'prompt' ? ": in prompt mode BFCL decodes simple_java / simple_javascript output with tree-sitter grammars this emulation does not carry — run those categories in FC mode, or rescore BFCL's own result files" : ''}.`,
      '',
    );
  }

  parts.push(
    "## toolgauge's layers (single-turn cases)",
    '',
    "The probe's layered scores on the same outputs: the strict tier parses as the serving stack would (FC: the endpoint's `tool_calls`; prompt mode: the pythonic parser), the lenient tier as a forgiving parser would.",
    '',
  );
  parts.push(
    table(
      ['layer', 'strict [95% CI]', 'lenient [95% CI]', 'n'],
      ['parse_ok', 'schema_valid', 'tool_correct', 'args_correct', 'abstained', 'false_trigger'].map((l) => [
        l,
        fmtEstimate(flat[`layers.${l}`]),
        fmtEstimate(flat[`layers.lenient.${l}`]),
        flat[`layers.${l}`]?.n ?? 0,
      ]),
    ),
    '',
  );
  const attr = Object.entries(x.attribution ?? {});
  if (attr.length)
    parts.push(`Attribution (strict tier, single-turn): ${attr.map(([k, n]) => `${mdText(k)} ${n}`).join(', ')}.`, '');

  parts.push(
    '## BFCL verdict vs toolgauge verdict',
    '',
    "BFCL's verdict is the score above; toolgauge's (the lenient tier's, scored by the probe's value rules with BFCL's alternative values as equivalents) is reported beside it, never instead of it. Where they part:",
    '',
  );
  parts.push(
    table(
      ['class', 'BFCL', 'toolgauge', 'cases', 'what happens'],
      Object.entries(x.deviations ?? {}).map(([k, n]) => [
        k,
        BFCL_PASSES.has(k) ? 'pass' : 'fail',
        BFCL_PASSES.has(k) ? 'fail' : 'pass',
        n,
        DEVIATION_NOTES[k] ?? '',
      ]),
    ),
    '',
  );
  const ex = x.deviation_examples ?? [];
  if (ex.length) {
    parts.push(
      table(
        ['id', 'category', 'BFCL', 'toolgauge', 'class', 'why'],
        ex.slice(0, 30).map((d) => [d.id, d.category, d.bfcl, d.toolgauge, d.class, d.note.slice(0, 160)]),
      ),
      '',
    );
    if ((c.deviations ?? 0) > 30)
      parts.push(`… and ${(c.deviations ?? 0) - 30} more (every case's record is in beyond.jsonl).`, '');
  }

  parts.push('## Answer keys BFCL itself cannot pass', '');
  const un = x.unpassable ?? [];
  if (un.length) {
    parts.push(
      `No output passes these under BFCL's checker (a proof from the key and the schema; see docs/bfcl.md). ${un.length} of them are in this run and count against every model alike:`,
      '',
    );
    parts.push(
      table(
        ['id', 'BFCL (this run)', 'why no output can pass'],
        un.map((u) => [u.id, u.valid ? 'valid (unexpected)' : u.error_type, u.why]),
      ),
      '',
    );
  } else parts.push('None of the known unpassable keys is in this run.', '');

  const et = Object.entries(x.error_types ?? {}).sort((a, b) => b[1] - a[1]);
  if (et.length)
    parts.push(
      "## BFCL's error types",
      '',
      table(
        ['error_type', 'cases'],
        et.slice(0, 25).map(([k, n]) => [k, n]),
      ),
      '',
    );
  if (s.errors.length) {
    parts.push(
      '## Harness errors',
      '',
      table(
        ['id', 'trial', 'error'],
        s.errors.slice(0, 50).map((e) => [e.id, e.trial, e.error.slice(0, 200)]),
      ),
      '',
    );
    if (s.errors.length > 50) parts.push(`… and ${s.errors.length - 50} more.`, '');
  }
  if (s.extra.charts)
    for (const [label, file] of Object.entries(s.extra.charts as Record<string, string>))
      parts.push(`![${label}](${file})`, '');
  parts.push(
    "Files: `results.jsonl` (`{id, category, valid, error_type}`, as `toolgauge bfcl rescore` writes), `beyond.jsonl` (toolgauge's verdict, cause and deviation per case), `result/BFCL_v4_<category>_result.json` (the outputs in BFCL's own result format: `toolgauge bfcl rescore --result-dir result` or BFCL's checker score them again), `traces/`.",
    '',
  );
  return parts.join('\n');
}

export function bfclTerminal(s: Summary, outDir: string): string {
  const flat = flattenMetrics(s.metrics);
  const c = s.counts;
  const cats = categoryEstimates(flat);
  const lines = [
    '',
    `toolgauge · BFCL · ${s.header.model} · ${String(s.config.mode)}${noticeTag(s)}`,
    `  overall ${pct(flat.overall)} (BFCL's formula)  in scope ${pct(flat.overall_in_scope)}  ${c.runs} cases: ${c.valid} valid, ${c.invalid} invalid, ${c.errors} harness errors`,
    ...cats.map(([k, e]) => `  ${k.padEnd(26)} ${pct(e)}  n=${e.n}`),
    `  toolgauge's verdict ${pct(flat['toolgauge.accuracy'])}; deviations ${c.deviations}; undecided ${c.undecided}; unpassable keys ${c.unpassable}`,
  ];
  lines.push(...summaryFooter(s, outDir));
  return lines.join('\n');
}

export function bfclCharts(s: Summary): Chart[] {
  const flat = flattenMetrics(s.metrics);
  const sim = s.notice ? ' — simulator' : '';
  const cats = categoryEstimates(flat).map(([k, e]) => estimateBar(k, e));
  return [
    {
      file: 'charts/accuracy.svg',
      label: 'BFCL accuracy per category with 95% CI',
      svg: barChart(cats, { title: `BFCL accuracy per category (95% CI)${sim}`, axisLabel: 'accuracy' }),
    },
  ];
}
