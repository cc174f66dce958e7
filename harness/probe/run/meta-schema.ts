import { z } from 'zod';
import { CAUSES, VERDICT_KINDS } from '../../calls/attribute/index.ts';
import { LAYERED_METRICS } from '../../calls/score/index.ts';
import { TRANSPORTS } from './env.ts';

/**
 * ProbeMeta (run/types.ts) as a schema: what a journal line read back (resume, a -t re-run, `report DIR`) must hold
 * — every field the aggregator reads: the case's category and family, both tiers' verdict, cause, layered scores and
 * parse (calls, attempted, truncated), the raw output, the counterfactual, the arm. The kit checks its own fields
 * (harness/kit/journal.ts); extra fields pass through.
 */
const tiers = <T extends z.ZodType>(t: T) => z.object({ strict: t, lenient: t });
const Bit = z.union([z.literal(0), z.literal(1), z.null()]);
const Score = z
  .object({ ...Object.fromEntries(LAYERED_METRICS.map((k) => [k, Bit])), passed: z.boolean() })
  .passthrough();
const Parse = z.object({ calls: z.array(z.unknown()), attempted: z.boolean(), truncated: z.boolean() }).passthrough();
const Verdict = z.object({ cause: z.enum(CAUSES).nullable(), kind: z.enum(VERDICT_KINDS), evidence: z.string() });

export const ProbeMetaSchema = z
  .object({
    suite: z.literal('probe'),
    cat: z.string(),
    family: z.string(),
    transport: z.enum(TRANSPORTS),
    expects_call: z.boolean(),
    expected: z.array(z.unknown()).nullable(),
    output: z
      .object({
        content: z.string().nullable(),
        tool_calls: z.array(z.unknown()),
        finish_reason: z.string().nullable(),
      })
      .passthrough()
      .nullable(),
    parse: tiers(Parse).nullable(),
    parse_tier: z.enum(['strict', 'lenient', 'none']),
    scores: tiers(Score).nullable(),
    passed: tiers(z.boolean()),
    cause: tiers(Verdict),
    template_sha256: z.string().nullable(),
    prior_calls: z.number().int().nonnegative().optional(),
    render_error: z.string().nullable().optional(),
    counterfactual: z
      .object({ output: z.string(), passed: tiers(z.boolean()) })
      .passthrough()
      .nullable(),
    case_id: z.string().optional(),
    arm: z
      .object({ decode: z.enum(['free', 'constrained', 'required']), method: z.string(), model: z.string() })
      .optional(),
    constraint: z.object({ server: z.string(), mechanism: z.string(), description: z.string() }).nullable().optional(),
    repetition: z.boolean().optional(),
  })
  .passthrough();
