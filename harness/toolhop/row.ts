import { z } from 'zod';
import { FunctionSchema } from '../core/chat.ts';
import { ownRecord } from '../core/own-record.ts';

/** One ToolHop row, as published in `bytedance-research/ToolHop` `data/ToolHop.json`. */
export const ToolhopRow = z.object({
  id: z.union([z.number().int(), z.string().min(1)]),
  question: z.string().min(1),
  answer: z.string(),
  /** sub-question → gold intermediate answer, one per hop, in hop order. */
  sub_task: ownRecord(z.string()),
  /** sub-question → the tool for that hop (an OpenAI function schema), in hop order. */
  tools: ownRecord(
    FunctionSchema.extend({
      description: z.string().default(''),
      parameters: z
        .object({
          type: z.literal('object', { message: 'parameters.type must be "object"' }),
          properties: ownRecord(z.unknown()),
        })
        .passthrough(),
    }),
  ),
  /** Python source of each tool, in the order of `tools`. */
  functions: z.array(z.string()),
  domain: z.string().default(''),
  answer_type: z.string().default(''),
  previous_answer_type: z.string().default(''),
});
export type ToolhopRow = z.infer<typeof ToolhopRow>;

export function rowId(row: Pick<ToolhopRow, 'id'>): string {
  return String(row.id);
}

export function hopCount(row: ToolhopRow): number {
  return Object.keys(row.tools).length;
}
