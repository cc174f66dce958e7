import type { ExpectedCall } from '../cases/types.ts';
import type { Tier, Verdict } from '../../calls/attribute/index.ts';
import type { ParsedCall } from '../../parse/index.ts';
import type { LayeredScore } from '../../calls/score/index.ts';
import type { TierParse } from './observe.ts';
import type { Transport } from './env.ts';

/**
 * One probe case's result: a line of cases.jsonl (docs/probe.md, "Outputs" — raw output, transport, parse tier,
 * layered
 * scores, cause under each parser tier, template hash) and, as is, the test's `task.meta.toolgauge` (the
 * reporter aggregates only from it). A type alias, so it fits harness/vitest/meta.ts's open InstanceMeta.
 */
export type ProbeRecord = {
  suite: 'probe';
  id: string;
  trial: number;
  cat: string;
  family: string;
  split: string;
  /** A harness error (endpoint down after retries, template the engine cannot render …): not a model failure. */
  error: string | null;
  resumed?: boolean;
  transport: Transport;
  model: string;
  expects_call: boolean;
  expected: ExpectedCall[] | null;
  /** The raw model output: chat content + tool_calls, or the completion text in `content`. */
  output: {
    content: string | null;
    tool_calls: Array<{ name: string; arguments: string }>;
    finish_reason: string | null;
  } | null;
  prompt_sha256: string | null;
  parse: Record<Tier, TierParse> | null;
  /** The lowest parser tier that recovered a call. */
  parse_tier: 'strict' | 'lenient' | 'none';
  scores: Record<Tier, LayeredScore> | null;
  passed: Record<Tier, boolean>;
  cause: Record<Tier, Verdict>;
  template_sha256: string | null;
  template_findings: string[];
  /** Assistant tool calls in the case's history (a template that drops them breaks exactly these cases). */
  prior_calls?: number;
  /** The template under test could not render this case (the case was not asked); null when it rendered. */
  render_error?: string | null;
  counterfactual: {
    template_sha256: string;
    output: string;
    calls: Record<Tier, ParsedCall[]>;
    passed: Record<Tier, boolean>;
  } | null;
  latency_ms: number;
  attempts: number;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  wall_ms: number;
  /** The case's own id (`id` carries the arm when the run has axes); absent in records written before the axes. */
  case_id?: string;
  /** The arm this record ran in (decode, method, model label); absent = the reference arm of a run without axes. */
  arm?: { decode: 'free' | 'constrained' | 'required'; method: string; model: string };
  /** The constraint sent with `--decode constrained` (server, mechanism, one-line description). */
  constraint?: { server: string; mechanism: string; description: string } | null;
  /** What the method decided for this case (PA-Tool: the rename map); calls in `parse` are mapped back already. */
  method_meta?: Record<string, unknown> | null;
  /** The output holds a degenerate repetition (a unit repeated back to back; see run/repetition.ts). */
  repetition?: boolean;
  /** A quantized lineup entry on local engines: the case's damage against its reference (gold transcript, teacher-forced). */
  quant_damage?: { reference: string; agreement: number; kl: number; steps: number; exact: boolean } | null;
  /** Why that measurement failed (the case's own result stands). */
  quant_damage_error?: string | null;
};

/** A case's record as the test's meta: the record plus the kit's verdict fields. */
export type ProbeMeta = ProbeRecord & { pass: boolean; reason?: string | null; order?: number; trace?: string | null };
