// The engine's rules for a request, as zod schemas, checked before anything reaches its child process: a value
// llama.cpp does not expect (an id outside the vocabulary, a negative count) can abort the process it runs in.
// EngineHost checks every request against them, unless its caller's own boundary already holds the request to
// these rules (`checked` on `complete`: toolgauge serve's body schemas, harness/serve/request.ts).
import { z } from 'zod';
import { firstZodIssue } from '../core/errors.ts';
import { EngineError } from './types.ts';

export const tokenId = z.number().int().nonnegative();

export const CompleteRequestSchema = z.strictObject({
  prompt: z.string().min(1),
  grammar: z.string().min(1).optional(),
  tokenBias: z
    .array(
      z.strictObject({
        token: z.union([tokenId, z.string().min(1)]),
        bias: z.union([z.number().finite(), z.literal('never')]),
      }),
    )
    .max(100_000)
    .optional(),
  seed: z.number().int().nonnegative().max(0xffffffff).optional(),
  temperature: z.number().finite().min(0).max(100).optional(),
  topP: z.number().gt(0).max(1).optional(),
  topK: z.number().int().nonnegative().optional(),
  repeatPenalty: z.number().finite().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  stop: z.array(z.string()).max(64).optional(),
  topLogprobs: z.number().int().min(0).max(20).optional(),
});

export const DistributionsRequestSchema = z.strictObject({
  prompt: z.string().min(1),
  continuation: z.union([z.string(), z.array(tokenId)]),
  topK: z.number().int().min(0).max(1000).optional(),
  full: z.boolean().optional(),
});

/** A request checked at the boundary: one line naming the field. */
export function checkRequest<T>(schema: z.ZodType<T>, op: string, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const { field, message } = firstZodIssue(r.error);
  throw new EngineError('request', `${op}: field ${field || '(request)'}: ${message}`);
}
