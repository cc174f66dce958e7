/**
 * CI gates (docs/statistics.md, "Gates"): `accuracy>=0.9`, `accuracy.lo>=0.40`, `tsr.P2>=0.3`, several joined by
 * `,`. A gate reads
 * `metrics.<name>` of a summary (the value, or one of its fields `.lo`, `.hi`, `.n`). Pure.
 */
export type Op = '>=' | '<=' | '>' | '<' | '==' | '!=';

export interface GateClause {
  text: string;
  metric: string;
  field: 'value' | 'lo' | 'hi' | 'n';
  op: Op;
  threshold: number;
}

export interface GateCheck extends GateClause {
  actual: number | null;
  passed: boolean;
  reason?: string;
}

export interface GateVerdict {
  expression: string;
  checks: GateCheck[];
  passed: boolean;
  reasons: string[];
}

const CLAUSE = /^\s*([A-Za-z_][\w.\-/]*)\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*$/;

export class GateSyntaxError extends Error {
  override name = 'GateSyntaxError';
}

export function parseGate(expression: string): GateClause[] {
  const parts = expression
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!parts.length) throw new GateSyntaxError(`gate '${expression}' is empty`);
  return parts.map((text) => {
    const m = CLAUSE.exec(text);
    if (!m)
      throw new GateSyntaxError(
        `gate clause '${text}' is not METRIC[.lo|.hi|.n] OP NUMBER (OP one of >= <= > < == !=)`,
      );
    let metric = m[1]!;
    let field: GateClause['field'] = 'value';
    const suffix = /\.(lo|hi|n|value)$/.exec(metric);
    if (suffix) {
      field = suffix[1] as GateClause['field'];
      metric = metric.slice(0, -suffix[0].length);
    }
    return { text, metric, field, op: m[2] as Op, threshold: Number(m[3]) };
  });
}

type Metrics = Record<string, { value: number; lo: number; hi: number; n: number } | undefined>;

export function evaluateGate(
  expression: string,
  metrics: Metrics,
  run: { instances: number; harnessErrors: number },
): GateVerdict {
  const checks = parseGate(expression).map((c): GateCheck => {
    const m = metrics[c.metric];
    if (!m)
      return {
        ...c,
        actual: null,
        passed: false,
        reason: `no metric '${c.metric}' in this run (have: ${Object.keys(metrics).join(', ') || 'none'})`,
      };
    const actual = m[c.field];
    if (typeof actual !== 'number' || Number.isNaN(actual))
      return { ...c, actual: null, passed: false, reason: `${c.metric}.${c.field} is undefined (n=${m.n})` };
    return { ...c, actual, passed: compare(actual, c.op, c.threshold) };
  });
  const reasons: string[] = [];
  if (run.instances === 0) reasons.push('empty run: no instances were evaluated');
  if (run.harnessErrors > 0) reasons.push(`${run.harnessErrors} harness error(s)`);
  for (const c of checks) if (!c.passed) reasons.push(c.reason ?? `${c.text}: actual ${c.actual}`);
  return { expression, checks, passed: reasons.length === 0, reasons };
}

function compare(a: number, op: Op, b: number): boolean {
  switch (op) {
    case '>=':
      return a >= b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '<':
      return a < b;
    case '==':
      return a === b;
    case '!=':
      return a !== b;
  }
}

/**
 * Check a gate before any instance runs: its syntax, and that every metric it names is one the suite reports
 * (`names` may end in `*` to match a family, e.g. `tsr.*`). Throws GateSyntaxError with the known names.
 */
export function checkGate(expression: string, names: readonly string[]): GateClause[] {
  const clauses = parseGate(expression);
  for (const c of clauses) {
    const known = names.some((n) => (n.endsWith('*') ? c.metric.startsWith(n.slice(0, -1)) : c.metric === n));
    if (!known)
      throw new GateSyntaxError(
        `gate clause '${c.text}' names metric '${c.metric}', which this suite does not report (it reports: ${names.join(', ')})`,
      );
  }
  return clauses;
}
