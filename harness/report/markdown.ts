import type { EstimateJson, Summary } from './summary.ts';

/** Markdown building blocks shared by the suites' report.md. */
export function fmtEstimate(e: EstimateJson | undefined, digits = 3): string {
  if (!e) return '—';
  if (e.value === null) return `— (n=${e.n})`;
  const f = (x: number | null) => (x === null ? '—' : x.toFixed(digits));
  return `${f(e.value)} [${f(e.lo)}, ${f(e.hi)}]`;
}

/**
 * Text that came from data or an endpoint (ids, domains, model names, answers), made inert in Markdown: no HTML or
 * script, no link or image (a tracking beacon), no table break, one line.
 */
export function mdText(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/`/g, '\\`')
    .replace(/\](\s*)\(/g, '\\]$1\\(')
    .replace(/[\r\n]+/g, ' ');
}

/** A fenced code block that its content cannot close early: the fence is longer than any backtick run inside. */
export function fenced(text: string, lang = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text}\n${fence}`;
}

export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const esc = (c: string | number) => mdText(String(c));
  return [
    `| ${headers.map(esc).join(' | ')} |`,
    `| ${headers.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

export function metricRow(name: string, e: EstimateJson | undefined): Array<string | number> {
  return [
    name,
    fmtEstimate(e),
    e?.n ?? 0,
    e?.denominator ?? '',
    e ? `${e.method}${e.seed !== undefined ? `, seed ${e.seed}` : ''}` : '',
  ];
}

export const METRIC_HEADERS = ['metric', 'value [95% CI]', 'n', 'denominator', 'interval'];

/** The top of every report: the simulator notice, the reproducibility header, the gate verdict. */
export function headerBlock(title: string, s: Summary): string {
  const h = s.header as Record<string, unknown>;
  const ds = h.dataset as { file?: string; sha256?: string; origin?: string } | null;
  const lines = [`# ${mdText(title)}`, ''];
  if (s.notice) lines.push(`> **${s.notice}**`, '');
  lines.push(
    table(
      ['field', 'value'],
      [
        ['model', String(h.model)],
        ['endpoint', String(h.endpoint)],
        ['simulated', String(h.simulated)],
        ...(h.engine ? [['engine', engineLine(h.engine as Record<string, unknown>)]] : []),
        ['dataset', ds ? `${ds.origin ?? ds.file} (sha256 ${String(ds.sha256).slice(0, 16)}…)` : '—'],
        ...(h.template_sha256 ? [['template sha256', String(h.template_sha256)]] : []),
        ['generation', JSON.stringify(h.generation)],
        ['seed / trials', `${h.seed} / ${h.trials}`],
        ['injected date', String(h.injected_date)],
        [
          'toolgauge',
          `${h.toolgauge_version} (${h.git_commit ? String(h.git_commit).slice(0, 12) : 'no git'}${h.git_dirty ? ', dirty' : ''})`,
        ],
        ['machine', `${h.os}; ${h.cpu} ×${h.cpus}; ${h.ram_gib} GiB; Node ${h.node}`],
        ['time', `${h.started_at} → ${h.ended_at}`],
      ],
    ),
    '',
  );
  if (s.gate) {
    lines.push(`**Gate \`${s.gate.expression}\`: ${s.gate.passed ? 'PASSED' : 'FAILED'}**`, '');
    lines.push(
      table(
        ['clause', 'actual', 'verdict'],
        s.gate.checks.map((c) => [
          c.text,
          c.actual === null
            ? '—'
            : typeof c.threshold === 'number'
              ? gateActual(c.actual, c.threshold)
              : c.actual.toFixed(4),
          c.passed ? 'pass' : 'fail',
        ]),
      ),
    );
    if (s.gate.reasons.length) lines.push('', ...s.gate.reasons.map((r) => `- ${r}`));
    lines.push('');
  }
  return lines.join('\n');
}

/** A gguf: run's engine and file in one line: engine and build, tensor type, sha256s, test model or not. */
export function engineLine(e: Record<string, unknown>): string {
  const short = (x: unknown) => (typeof x === 'string' ? `${x.slice(0, 16)}…` : '—');
  return [
    `${String(e.engine)}${e.llama_cpp_build ? ` (llama.cpp ${String(e.llama_cpp_build)})` : ''}`,
    `${String(e.file)} ${String(e.tensor_type)}`,
    `file sha256 ${short(e.sha256)}`,
    `chat template sha256 ${short(e.chat_template_sha256)}`,
    e.test_model ? 'TOOLGAUGE TEST MODEL (random weights)' : 'not a test model',
  ].join('; ');
}

export function breakdownTable(s: Summary, group: string, metric: string, label: string): string {
  const byKey = s.breakdowns[group];
  if (!byKey || !Object.keys(byKey).length) return '';
  const rows = Object.entries(byKey).map(([k, ms]) => {
    const e = (ms as Record<string, EstimateJson>)[metric];
    return [k, fmtEstimate(e), e?.n ?? 0];
  });
  return `### ${label}\n\n${table([group, `${metric} [95% CI]`, 'n'], rows)}\n`;
}

/**
 * A gate clause's actual value: four decimals, unless rounding would hide which side of the threshold it lies on
 * (0.299993 shown as 0.3000 next to `>=0.3 | fail`); then every digit.
 */
export function gateActual(actual: number, threshold: number): string {
  const rounded = actual.toFixed(4);
  return Math.sign(Number(rounded) - threshold) === Math.sign(actual - threshold) ? rounded : String(actual);
}
