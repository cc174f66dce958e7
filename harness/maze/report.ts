import { fmtEstimate, headerBlock, mdText, table } from '../report/markdown.ts';
import { flattenMetrics, type EstimateJson, type Summary } from '../report/summary.ts';
import type { JudgeAgreement, TableJson } from './agreement.ts';
import type { TokenTotals } from './aggregator.ts';
import { COMPLEXITIES, MODES } from './task.ts';
import { verdictSettingOf, type LlmVerdicts } from './verdicts.ts';

/** report.md of a Maze run: TSR / PRR / RC per mode and per complexity × mode, recovery and failure reasons. */
export function mazeMarkdown(s: Summary): string {
  const flat = flattenMetrics(s.metrics);
  const modes = MODES.filter((m) => flat[`tsr.${m}`]);
  const cfg = s.config as { judge?: string; agent?: string; agent_type?: string; tool_transport?: string };
  const setting = verdictSettingOf(s.config);
  const verdicts = s.extra.verdict as LlmVerdicts | undefined;
  const parts = [
    headerBlock(`Maze — ${s.header.model}`, s),
    `**Judge mode: \`${cfg.judge ?? 'compat'}\` · agent mode: \`${cfg.agent ?? 'fc'}\`${cfg.agent_type ? ` · agent type: \`${cfg.agent_type}\`` : ''}${setting === 'rules' ? '' : ` · verdict: \`${setting}\``}** (${cfg.agent === 'prompt' ? 'tools described in the prompt, calls parsed from text' : 'native function calling'}${cfg.tool_transport === 'mcp' ? '; the agent reached the tools over MCP, from a server per run' : ''}). Runs are comparable only under the same judge${setting === 'rules' ? '' : ', verdict'} and agent mode.`,
    '',
    '## TSR / PRR / RC per mode',
    '',
    ...(setting === 'llm'
      ? [
          `By the LLM judge's verdicts (${mdText(verdicts?.judge_model ?? '')}): a run passes when its label is success, recovered or failed_safely; ${verdicts?.judge_errors ?? 0} runs without a verdict (judge errors) are left out and counted apart.`,
          '',
        ]
      : setting === 'both'
        ? ["By the rule judge's verdicts; the LLM judge's are beside them below.", '']
        : []),
  ];
  parts.push(
    table(
      ['mode', 'TSR [95% CI]', 'n', 'PRR [95% CI]', 'hits', 'RC [95% CI]'],
      modes.map((m) => [
        m,
        fmtEstimate(flat[`tsr.${m}`]),
        flat[`tsr.${m}`]?.n ?? 0,
        fmtEstimate(flat[`prr.${m}`]),
        flat[`prr.${m}`]?.n ?? 0,
        fmtEstimate(flat[`rc.${m}`]),
      ]),
    ),
    '',
    'TSR = passes / runs; PRR = runs that hit a perturbation and passed / runs that hit one; RC = mean recovery cost over all runs (0 without a hit, 1 on a failed hit, else 1 − C_oracle / max(C_act, C_oracle)). Intervals: Wilson for small or lopsided pass/fail samples, seeded bootstrap otherwise.',
    '',
  );
  for (const [label, file] of Object.entries((s.extra.charts as Record<string, string>) ?? {}))
    parts.push(`![${label}](${file})`, '');
  if (setting === 'both') parts.push(...sideBySide(flat, modes, verdicts));
  if (verdicts?.labels) parts.push(...labelSection(verdicts, modes));
  parts.push('## Per complexity × mode', '');
  const metrics = ['tsr', 'prr', 'rc', ...(setting === 'both' ? ['llm.tsr', 'llm.prr', 'llm.rc'] : [])];
  for (const metric of metrics) {
    const rows = COMPLEXITIES.filter((c) => s.breakdowns.complexity?.[c]).map((c) => {
      const byMetric = flattenMetrics(s.breakdowns.complexity?.[c] ?? {});
      return [c.toUpperCase(), ...modes.map((m) => cell(byMetric[`${metric}.${m}`]))];
    });
    const title = metric.startsWith('llm.') ? `LLM judge: ${metric.slice(4).toUpperCase()}` : metric.toUpperCase();
    if (rows.length) parts.push(`### ${title}`, '', table(['complexity', ...modes], rows), '');
  }
  const recovery = s.extra.recovery as Record<string, Record<string, number>> | undefined;
  if (recovery) {
    const kinds = ['retry', 'switch', 'abort', 'none', 'unrecovered'];
    parts.push(
      '## Recovery',
      '',
      ...(setting === 'rules'
        ? []
        : ["The rule judge's reading of the traces (the LLM judge gives labels, above).", '']),
      table(
        ['mode', ...kinds],
        Object.entries(recovery).map(([m, r]) => [m, ...kinds.map((k) => r[k] ?? 0)]),
      ),
      '',
    );
  }
  const failures = s.extra.failure_reasons as Array<Record<string, number | string>> | undefined;
  if (failures?.length) {
    parts.push(
      '## Failures by reason',
      '',
      table(
        ['failure reason', 'total', ...modes],
        failures.map((f) => [String(f.failure_reason), f.total ?? 0, ...modes.map((m) => f[m] ?? 0)]),
      ),
      '',
    );
  }
  parts.push(
    ...tokenSection(
      '## Tokens per mode',
      'runs',
      s.extra.tokens as Record<string, TokenTotals> | undefined,
      "As the endpoint reported them (summed over each run's model calls); per run in `instances.jsonl` and the inference files.",
    ),
    ...tokenSection(
      "## The LLM judge's tokens per mode",
      'runs judged',
      s.extra.judge_tokens as Record<string, TokenTotals> | undefined,
      "Apart from the agent's tokens above: the judge's requests, as its endpoint reported them.",
    ),
  );
  parts.push(...agreementSection(s, flat));
  if (s.errors.length)
    parts.push(
      '## Harness errors',
      '',
      table(
        ['run', 'error'],
        s.errors.slice(0, 50).map((e) => [e.id, e.error.slice(0, 200)]),
      ),
      '',
    );
  parts.push(
    'Files: `<c>/inferences/<task>_<mode>_inference.json`, `<c>/evaluations/<task>_<mode>_eval.json`, `<c>/metrics/metrics_report_<timestamp>.json`, `summary.json`, `instances.jsonl`.',
    '',
  );
  return parts.join('\n');
}

/** The two judges' agreement, when the LLM judge ran (harness/maze/agreement.ts). */
function agreementSection(s: Summary, flat: Record<string, EstimateJson | undefined>): string[] {
  const a = s.extra.judge_agreement as JudgeAgreement | undefined;
  if (!a) return [];
  const grid = (t: TableJson) =>
    table(
      [`${t.rows} ↓ / ${t.columns} →`, ...t.labels],
      t.labels.map((l, i) => [l, ...t.counts[i]!]),
    );
  const pk = a.pass_kappa;
  const out = [
    '## Rule judge vs LLM judge',
    '',
    `LLM judge ${mdText(a.judge_model)} on ${a.asked} runs: ${a.judged} with both verdicts, ${a.judge_errors} judge errors (no verdict: left out, never counted as a pass).`,
    '',
    table(
      ['', 'value [95% CI]', 'n'],
      [
        ['Cohen’s kappa (4 labels)', fmtEstimate(flat.judge_kappa), a.judged],
        ['raw agreement (4 labels)', fmtEstimate(flat.judge_agreement), a.judged],
        [
          'Cohen’s kappa (pass/fail)',
          fmtEstimate({ ...pk, value: num(pk.value), lo: num(pk.lo), hi: num(pk.hi) }),
          a.judged,
        ],
      ],
    ),
    '',
    "Labels: success (no perturbation reached the agent, task done), recovered (a retry or switch, then done), failed_safely (a C1 permanent failure ended with an abort), failed. The rule judge's verdict maps onto them by its pass and recovery kind. Kappa intervals: seeded percentile bootstrap over runs; undefined (—) when chance already explains every agreement.",
    '',
    grid(a.confusion),
    '',
    grid(a.pass_confusion),
    '',
  ];
  if (a.judge_error_examples.length)
    out.push(
      table(
        ['run', 'judge error'],
        a.judge_error_examples.slice(0, 10).map((e) => [e.id, e.error.slice(0, 200)]),
      ),
      '',
    );
  return out;
}

/** `--verdict both`: each metric per mode by the rule judge and by the LLM judge, with the judge errors. */
function sideBySide(
  flat: Record<string, EstimateJson | undefined>,
  modes: string[],
  v: LlmVerdicts | undefined,
): string[] {
  return [
    '## Rule judge and LLM judge side by side',
    '',
    table(
      ['mode', 'TSR rules', 'TSR LLM', 'PRR rules', 'PRR LLM', 'RC rules', 'RC LLM', 'judge errors'],
      modes.map((m) => [
        m,
        cell(flat[`tsr.${m}`]),
        cell(flat[`llm.tsr.${m}`]),
        cell(flat[`prr.${m}`]),
        cell(flat[`llm.prr.${m}`]),
        cell(flat[`rc.${m}`]),
        cell(flat[`llm.rc.${m}`]),
        v?.labels[m]?.judge_error ?? 0,
      ]),
    ),
    '',
    "The LLM judge's metrics leave out its judge errors (runs without a verdict); a run cut short by the endpoint fails under both judges. How far the two agree: Cohen's kappa below.",
    '',
  ];
}

/** The LLM judge's labels per mode, with its judge errors and the runs it was not shown (harness errors). */
function labelSection(v: LlmVerdicts, modes: string[]): string[] {
  const kinds = ['success', 'recovered', 'failed_safely', 'failed', 'judge_error', 'harness_error'];
  return [
    "## The LLM judge's labels",
    '',
    table(
      ['mode', ...kinds],
      modes.map((m) => [m, ...kinds.map((k) => v.labels[m]?.[k] ?? 0)]),
    ),
    '',
  ];
}

/** Tokens per mode (the agent's, or the LLM judge's apart from them): a table and what it counts, or nothing. */
function tokenSection(
  title: string,
  runsLabel: string,
  totals: Record<string, TokenTotals> | undefined,
  note: string,
): string[] {
  if (!totals || !Object.keys(totals).length) return [];
  return [
    title,
    '',
    table(
      ['mode', runsLabel, 'with usage', 'prompt', 'completion', 'total'],
      Object.entries(totals).map(([m, x]) => [
        m,
        x.runs,
        x.runs_with_usage,
        x.prompt_tokens,
        x.completion_tokens,
        x.total_tokens,
      ]),
    ),
    '',
    note,
    '',
  ];
}

const num = (x: number | null) => (x === null || !Number.isFinite(x) ? null : x);

function cell(e: EstimateJson | undefined): string {
  return e ? `${fmtEstimate(e, 2)} n=${e.n}` : '—';
}
