import { breakdownTable, headerBlock, METRIC_HEADERS, metricRow, table } from '../report/markdown.ts';
import { flattenMetrics, type Summary } from '../report/summary.ts';
import { sandboxLine, type SandboxCounts } from './sandbox-counts.ts';

/** report.md of a ToolHop run. */
export function toolhopMarkdown(s: Summary): string {
  const flat = flattenMetrics(s.metrics);
  const c = s.counts;
  const a = s.extra.activity as Record<string, number> | undefined;
  const parts = [
    headerBlock(`ToolHop — ${s.header.model}`, s),
    '## Result',
    '',
    table(
      METRIC_HEADERS,
      Object.entries(flat).map(([k, e]) => metricRow(k, e)),
    ),
    '',
    `${c.instances} rows (${c.runs} runs): ${c.correct} correct, ${c.wrong} wrong, ${c.errors} harness errors${c.resumed ? `, ${c.resumed} taken from an earlier run (--resume)` : ''}.`,
    '',
  ];
  const sandbox = s.extra.sandbox as SandboxCounts | undefined;
  if (sandbox) parts.push(`${sandboxLine(sandbox)}.`, '');
  const rules = s.extra.rules as { literal: number; substring: number; tool_result: number } | undefined;
  if (rules) {
    parts.push(
      '### Which rule credited each correct answer',
      '',
      '`accuracy` follows the reference runner (comparable with published numbers): rule 3 also credits a row when the gold answer appears in the last tool result, whatever the model answered. `strict_accuracy` counts rules 1–2 only — what the model actually answered.',
      '',
      table(
        ['rule', 'correct runs'],
        [
          ['1 literal (Python literal equality)', rules.literal],
          ['2 substring (normalised inclusion)', rules.substring],
          ['3 gold in the last tool result', rules.tool_result],
        ],
      ),
      '',
    );
  }
  if (s.extra.charts) {
    for (const [label, file] of Object.entries(s.extra.charts as Record<string, string>))
      parts.push(`![${label}](${file})`, '');
  }
  parts.push(
    '## Breakdowns',
    '',
    breakdownTable(s, 'hops', 'accuracy', 'By hop count'),
    breakdownTable(s, 'domain', 'accuracy', 'By domain'),
    breakdownTable(s, 'answer_type', 'accuracy', 'By answer type'),
  );
  if (a) {
    parts.push(
      '## Activity',
      '',
      table(
        ['mean turns', 'mean tool calls', 'tool error rate', 'final answer forced', 'tokens', 'retried requests'],
        [
          [
            a.mean_turns!.toFixed(2),
            a.mean_tool_calls!.toFixed(2),
            a.tool_error_rate!.toFixed(3),
            a.forced_final_rate!.toFixed(3),
            a.total_tokens!,
            a.retries!,
          ],
        ],
      ),
      '',
    );
  }
  if (s.errors.length) {
    parts.push(
      '## Harness errors',
      '',
      table(
        ['id', 'trial', 'error'],
        s.errors.slice(0, 50).map((e) => [e.id, e.trial, e.error.slice(0, 200)]),
      ),
    );
    if (s.errors.length > 50) parts.push('', `… and ${s.errors.length - 50} more (see results.jsonl).`);
    parts.push('');
  }
  parts.push('Files: `predictions.jsonl`, `results.jsonl`, `traces/<id>.json`, `summary.json`.', '');
  return parts.join('\n');
}
