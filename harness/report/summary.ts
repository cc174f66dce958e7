import { z } from 'zod';
import type { MetricEstimate } from '../stats/index.ts';
import { ReproHeader } from '../core/repro.ts';
import { TEST_MODEL_NOTICE } from '../core/engine-facts.ts';
import { jsonSafe } from './aggregate.ts';

/**
 * summary.json, the same envelope for every suite (docs/outputs.md). Metrics are nested by their dotted names
 * (`metrics.accuracy`, `metrics.tsr.P2`), each `{value, lo, hi, n, denominator, method, level, …}`; breakdowns
 * are `breakdowns.<group>.<key>.<metric>` in the same shape. NaN (no data) is written as null.
 */
export const SUMMARY_SCHEMA_ID = 'toolgauge.summary/1';

export const EstimateJson = z
  .object({
    value: z.number().nullable(),
    lo: z.number().nullable(),
    hi: z.number().nullable(),
    n: z.number().int().min(0),
    denominator: z.string(),
    method: z.enum(['bootstrap', 'cluster_bootstrap', 'wilson', 'none']),
    level: z.number(),
    seed: z.number().optional(),
    resamples: z.number().optional(),
    clusters: z.number().optional(),
  })
  .strict();
export type EstimateJson = z.infer<typeof EstimateJson>;

type Nested = { [k: string]: EstimateJson | Nested };
const NestedMetrics: z.ZodType<Nested> = z.lazy(() => z.record(z.string(), z.union([EstimateJson, NestedMetrics])));

/** A gate's verdict as summary.json stores it (computed by the kit's gate). */
export const GateJson = z.object({
  expression: z.string(),
  passed: z.boolean(),
  reasons: z.array(z.string()),
  checks: z.array(z.object({ text: z.string(), actual: z.number().nullable(), passed: z.boolean() }).passthrough()),
});
export type GateJson = z.infer<typeof GateJson>;

export const SummarySchema = z.object({
  schema: z.literal(SUMMARY_SCHEMA_ID),
  suite: z.string().min(1),
  /** Present on every simulator and test-model run: these numbers describe the simulator or random weights, not a model. */
  notice: z.string().nullable(),
  header: ReproHeader,
  config: z.record(z.string(), z.unknown()),
  counts: z.record(z.string(), z.number()),
  metrics: NestedMetrics,
  breakdowns: z.record(z.string(), z.record(z.string(), NestedMetrics)),
  errors: z.array(z.object({ id: z.string(), trial: z.number(), error: z.string() })),
  extra: z.record(z.string(), z.unknown()),
  gate: GateJson.nullable(),
});
export type Summary = z.infer<typeof SummarySchema>;

export const SIMULATOR_NOTICE =
  "SIMULATOR RUN: these numbers come from toolgauge's built-in simulated model (a test fixture), not from a language model.";

/** The tag a run's one-line terminal summary carries: the simulator's, a test model's, or none. */
export function noticeTag(s: Pick<Summary, 'notice'>, simulator = 'SIMULATOR — not a model result'): string {
  if (!s.notice) return '';
  return s.notice === TEST_MODEL_NOTICE ? '  [TEST MODEL — random weights, not a model result]' : `  [${simulator}]`;
}

/** The last lines of a run's terminal summary: the gate's verdict (when there is a gate), and where the report is. */
export function summaryFooter(s: Pick<Summary, 'gate'>, outDir: string): string[] {
  const gate = s.gate
    ? [
        `  gate ${s.gate.expression}: ${s.gate.passed ? 'PASSED' : 'FAILED'}${s.gate.reasons.length ? ` (${s.gate.reasons.join('; ')})` : ''}`,
      ]
    : [];
  return [...gate, `  report: ${outDir}/report.md`];
}

export function isEstimate(x: unknown): x is EstimateJson {
  return !!x && typeof x === 'object' && 'value' in x && 'n' in x && 'denominator' in x;
}

/** `{ 'tsr.P2': e }` → `{ tsr: { P2: e } }`. */
export function nestMetrics(flat: Record<string, MetricEstimate>): Nested {
  const out: Nested = {};
  for (const name of Object.keys(flat).sort()) {
    const parts = name.split('.');
    let node = out;
    for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Nested;
    node[parts.at(-1)!] = jsonSafe(flat[name]!) as EstimateJson;
  }
  return out;
}

/** The inverse: every estimate with its dotted name (what gates address). */
export function flattenMetrics(nested: Nested, prefix = ''): Record<string, EstimateJson> {
  const out: Record<string, EstimateJson> = {};
  for (const [k, v] of Object.entries(nested)) {
    const name = prefix ? `${prefix}.${k}` : k;
    if (isEstimate(v)) out[name] = v;
    else Object.assign(out, flattenMetrics(v as Nested, name));
  }
  return out;
}

export function buildSummary(input: {
  suite: Summary['suite'];
  header: ReproHeader;
  config: Record<string, unknown>;
  counts: Record<string, number>;
  metrics: Record<string, MetricEstimate>;
  breakdowns: Record<string, Record<string, Record<string, MetricEstimate>>>;
  errors: Summary['errors'];
  extra?: Record<string, unknown>;
  gate: GateJson | null;
}): Summary {
  const summary: Summary = {
    schema: SUMMARY_SCHEMA_ID,
    suite: input.suite,
    notice: input.header.simulated ? SIMULATOR_NOTICE : input.header.engine?.test_model ? TEST_MODEL_NOTICE : null,
    header: input.header,
    config: input.config,
    counts: input.counts,
    metrics: nestMetrics(input.metrics),
    breakdowns: Object.fromEntries(
      Object.entries(input.breakdowns).map(([g, byKey]) => [
        g,
        Object.fromEntries(Object.entries(byKey).map(([k, ms]) => [k, nestMetrics(ms)])),
      ]),
    ),
    errors: input.errors,
    extra: input.extra ?? {},
    gate: input.gate,
  };
  return validSummary(summary);
}

/**
 * Validate a summary and return it as given. zod rebuilds records by assignment, which would drop a key such as
 * `__proto__` (a domain or tag from data): the checked original keeps every key.
 */
export function validSummary(x: unknown): Summary {
  const r = SummarySchema.safeParse(x);
  if (!r.success) throw r.error;
  return x as Summary;
}

/** Gate metrics view: null (no data) becomes NaN so comparisons fail. */
export function gateMetrics(summary: Pick<Summary, 'metrics'>) {
  const flat = flattenMetrics(summary.metrics);
  return Object.fromEntries(
    Object.entries(flat).map(([k, e]) => [k, { value: e.value ?? NaN, lo: e.lo ?? NaN, hi: e.hi ?? NaN, n: e.n }]),
  );
}
