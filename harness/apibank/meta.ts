import { z } from 'zod';
import type { InstanceMetaBase } from '../kit/types.ts';

/** What each API-Bank test leaves for aggregation (and the journal): the reference's verdict and its stage. */
export interface ApibankMeta extends InstanceMetaBase {
  suite: 'apibank';
  level: '1' | '2' | '3';
  gold_api_name: string;
  predicted_api_name: string | null;
  /** parse | api_name | score, as the reference names the stage that decided; solve when the request failed. */
  stage: string | null;
  /** The reference's verdict; null when undetermined (a ToolSearcher frozen-cache miss with no embedding model). */
  correct: boolean | null;
  topology: string;
  n_llm_calls: number;
  total_tokens: number;
}

export const ApibankMetaSchema = z
  .object({
    suite: z.literal('apibank'),
    level: z.enum(['1', '2', '3']),
    gold_api_name: z.string(),
    predicted_api_name: z.string().nullable(),
    stage: z.string().nullable(),
    correct: z.boolean().nullable(),
    topology: z.string(),
    n_llm_calls: z.number().int().min(0),
    total_tokens: z.number().min(0),
  })
  .passthrough();
