import { z } from 'zod';
import { Usage } from '../model/types.ts';

/**
 * The ToolHop output files (docs/toolhop.md, "Outputs"), names and fields compatible with the reference runner plus
 * a few extra
 * fields (trial, hops, domain, rule) that the reports break down by. Validated when read back (rescore, resume,
 * report), so a hand-edited or torn file fails with a clear message.
 */
const Common = {
  // The dataset's id, integer or string, read as a string (files keep the dataset's type).
  id: z.union([z.string(), z.number()]).transform(String),
  trial: z.number().int().min(0).default(0),
  hops: z.number().int().min(0).default(0),
  domain: z.string().default(''),
  answer_type: z.string().default(''),
};

export const Prediction = z.object({
  ...Common,
  question: z.string().default(''),
  gold_answer: z.string(),
  predicted_answer: z.string(),
  final_message: z.string(),
  previous_tool_content: z.string(),
  turns: z.number().int(),
  tool_calls: z.number().int(),
  usage: Usage,
  error: z.string().nullable(),
  error_kind: z.string().nullable().default(null),
});
export type Prediction = z.infer<typeof Prediction>;

export const Result = z.object({
  ...Common,
  correct: z.boolean(),
  rule: z.enum(['literal', 'substring', 'tool_result']).nullable(),
  predicted_answer: z.string(),
  gold_answer: z.string(),
  error: z.string().nullable(),
});
export type Result = z.infer<typeof Result>;

export interface TraceFile {
  id: string;
  trial: number;
  hops: number;
  domain: string;
  answer_type: string;
  question: string;
  gold_answer: string;
  started_at: string;
  wall_ms: number;
  forced_final: boolean;
  exhausted: boolean;
  messages: unknown[];
  tool_executions: unknown[];
  model_calls: unknown[];
  error: string | null;
  /** Which sandbox ran the row's tools (`null`: none could; absent where no tool ran). */
  sandbox?: 'pyodide' | 'python' | null;
  /** The imports that sent the row to CPython under `--sandbox auto`. */
  sandbox_needs?: string[];
}
