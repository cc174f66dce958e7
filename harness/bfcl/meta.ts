// What each BFCL test leaves for the reporter: BFCL's verdict (valid, error_type, category) as BFCL's checker gives
// it, and beside it toolgauge's (the probe's layers per parser tier, the four-cause attribution, and the class of
// any disagreement). The record lines written per case come from here too, so results.jsonl and beyond.jsonl
// hold exactly what `toolgauge bfcl rescore` writes for the same outputs.
import { z } from 'zod';
import type { InstanceMetaBase } from '../kit/types.ts';
import { CAUSES } from '../calls/attribute/index.ts';
import { CALL_LAYERS, type Bit, type LayeredScore } from '../calls/score/index.ts';
import { DEVIATION_CLASSES, type Beyond, type Deviation } from './beyond.ts';
import { ALL_CATEGORIES } from './categories.ts';
import type { BfclCase } from './data.ts';
import type { RescoreRecord } from './rescore.ts';
import type { BfclRunOutcome, BfclUsage } from './run-case.ts';
import type { BfclVerdict } from './score.ts';
import { isUnpassable, UNPASSABLE_KEYS } from './unpassable.ts';

export type Layer = (typeof CALL_LAYERS)[number];
export type LayerBits = Record<Layer, Bit>;

export interface BfclMeta extends InstanceMetaBase {
  suite: 'bfcl';
  category: string;
  /** BFCL's verdict. `pass` is `valid` without a harness error. */
  valid: boolean;
  error_type: string;
  /** BFCL's first error message (the rest are in the trace). */
  bfcl_error: string | null;
  /** BFCL's Python would have raised on this output (see docs/bfcl.md: crashes are recorded, not fatal). */
  crash: string | null;
  /** This emulation cannot decide the output exactly (why); counted invalid and reported. */
  undecided: string | null;
  /** Single-turn: the probe's layered scores under the strict and lenient parser tiers. */
  layers: { strict: LayerBits; lenient: LayerBits } | null;
  /** toolgauge's verdict beside BFCL's (lenient tier), the strict tier's, and the strict tier's attribution. */
  toolgauge: RescoreRecord['toolgauge'] | null;
  deviation: Deviation | null;
  /** Multi-turn: turns with an empty ground truth on which the model made calls anyway (BFCL does not check them). */
  calls_on_abstention_turns: number;
  /** An answer key no output can pass under BFCL's checker (unpassable.ts). */
  unpassable: boolean;
  requests: number;
  usage: BfclUsage;
  wall_ms: number;
}

const BitSchema = z.union([z.literal(0), z.literal(1), z.null()]);
const Bits = z.object(Object.fromEntries(CALL_LAYERS.map((k) => [k, BitSchema])) as Record<Layer, typeof BitSchema>);
const Count = z.number().int().min(0);

/**
 * BfclMeta as a schema: what a journal line read back (resume, a -t re-run, `report DIR`) must hold — every field
 * the aggregator reads (BFCL's verdict per category, the layers, toolgauge's verdict and cause, deviations, the
 * unpassable keys, requests and tokens). The kit checks its own fields (harness/kit/journal.ts); extra fields pass.
 */
export const BfclMetaSchema = z
  .object({
    suite: z.literal('bfcl'),
    category: z.enum(ALL_CATEGORIES),
    valid: z.boolean(),
    error_type: z.string(),
    bfcl_error: z.string().nullable(),
    crash: z.string().nullable(),
    undecided: z.string().nullable(),
    layers: z.object({ strict: Bits, lenient: Bits }).nullable(),
    toolgauge: z
      .object({
        pass: z.boolean(),
        pass_strict: z.boolean().optional(),
        cause: z.enum(CAUSES).nullable().optional(),
        kind: z.string().optional(),
        evidence: z.string().optional(),
      })
      .passthrough()
      .nullable(),
    deviation: z
      .object({
        class: z.enum(DEVIATION_CLASSES),
        bfcl: z.enum(['pass', 'fail']),
        toolgauge: z.enum(['pass', 'fail']),
        note: z.string(),
      })
      .nullable(),
    calls_on_abstention_turns: Count,
    // The report explains each unpassable key from its entry: only a known one may be marked.
    unpassable: z.boolean(),
    requests: Count,
    usage: z.object({ prompt_tokens: Count, completion_tokens: Count, total_tokens: Count }).passthrough(),
    wall_ms: z.number().min(0),
  })
  .passthrough()
  .superRefine((m, ctx) => {
    if (m.unpassable && !Object.hasOwn(UNPASSABLE_KEYS, String(m.id)))
      ctx.addIssue({
        code: 'custom',
        path: ['unpassable'],
        message: `true, but ${JSON.stringify(m.id)} is not a known unpassable key`,
      });
  });

const bits = (s: LayeredScore): LayerBits => Object.fromEntries(CALL_LAYERS.map((k) => [k, s[k]])) as LayerBits;

/** The rescore record of a verdict and its beyond-BFCL view (rescore.ts writes the same for a result file). */
export function rescoreRecordOf(
  c: Pick<BfclCase, 'id' | 'category'>,
  verdict: BfclVerdict,
  beyond: Beyond | undefined,
): RescoreRecord {
  const record: RescoreRecord = {
    id: c.id,
    category: c.category,
    valid: verdict.valid,
    error_type: verdict.error_type,
  };
  if (verdict.crash) record.crash = verdict.crash;
  if (verdict.undecided) record.undecided = verdict.undecided;
  if (beyond) {
    if (beyond.kind === 'single_turn') {
      const v = beyond.attribution.strict;
      record.toolgauge = {
        pass: beyond.toolgaugePassLenient,
        pass_strict: beyond.toolgaugePass,
        cause: v.cause,
        kind: v.kind,
        evidence: v.evidence,
      };
    } else {
      record.toolgauge = {
        pass: verdict.valid && !beyond.deviation,
        kind: beyond.callsOnAbstentionTurns.length ? 'calls_on_abstention_turn' : verdict.valid ? 'pass' : 'bfcl_fail',
      };
    }
    if (beyond.deviation) record.deviation = beyond.deviation;
  }
  return record;
}

export function bfclMetaOf(c: BfclCase, out: BfclRunOutcome, o: { trial: number; trace: string }): BfclMeta {
  return {
    ...verdictMetaOf(c, out.verdict, out.beyond, o.trial, o.trace),
    requests: out.requests,
    usage: out.usage,
    wall_ms: out.wallMs,
  };
}

/** The meta of a result BFCL's own runner wrote, scored by `bfcl rescore` (no request of ours: no tokens, no time). */
export function rescoredBfclMeta(
  c: Pick<BfclCase, 'id' | 'category'>,
  verdict: BfclVerdict,
  beyond: Beyond | undefined,
): BfclMeta {
  return verdictMetaOf(c, verdict, beyond, 0);
}

function verdictMetaOf(
  c: Pick<BfclCase, 'id' | 'category'>,
  v: BfclVerdict,
  b: Beyond | undefined,
  trial: number,
  trace?: string,
): BfclMeta {
  const record = rescoreRecordOf(c, v, b);
  const reason = v.valid ? null : `${v.error_type}${v.error[0] ? `: ${v.error[0]}` : ''}`;
  return {
    suite: 'bfcl',
    id: c.id,
    trial,
    error: null,
    pass: v.valid,
    reason,
    ...(trace === undefined ? {} : { trace }),
    category: c.category,
    valid: v.valid,
    error_type: v.error_type,
    bfcl_error: v.error[0] ?? null,
    crash: v.crash ?? null,
    undecided: v.undecided ?? null,
    layers: b?.kind === 'single_turn' ? { strict: bits(b.layers.strict), lenient: bits(b.layers.lenient) } : null,
    toolgauge: record.toolgauge ?? null,
    deviation: b?.deviation ?? null,
    calls_on_abstention_turns: b?.kind === 'multi_turn' ? b.callsOnAbstentionTurns.length : 0,
    unpassable: isUnpassable(c.id),
    requests: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    wall_ms: 0,
  };
}

/** A case that could not run (endpoint down after retries, executor failure): an error, and invalid for BFCL. */
export function failedBfclMeta(c: BfclCase, trial: number, message: string): BfclMeta {
  return {
    suite: 'bfcl',
    id: c.id,
    trial,
    error: message,
    pass: false,
    reason: message,
    category: c.category,
    valid: false,
    error_type: 'toolgauge:harness_error',
    bfcl_error: message,
    crash: null,
    undecided: null,
    layers: null,
    toolgauge: null,
    deviation: null,
    calls_on_abstention_turns: 0,
    unpassable: isUnpassable(c.id),
    requests: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    wall_ms: 0,
  };
}
