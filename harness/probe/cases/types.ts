import { z } from 'zod';
import type { ChatMessage, OpenAITool } from '../../core/chat.ts';
import { ArgRuleSchema, type ArgRule, type ExpectedCall } from '../../match/types.ts';

/**
 * Probe cases (docs/probe.md): `{id, cat, tools, turns, expected|null, arg_rules, split}`, one JSON object per line.
 * The same schema reads toolgauge's own cases (cases/probe/cases.jsonl) and Toolhound's JSONL as is: tools are
 * names in a palette file (tools.yaml / tools.json) or inline OpenAI tools; `expected` is one call, a list of
 * calls (parallel / multiple) or null (an abstention case); an assistant turn holds `tool_call` or `tool_calls`.
 */

export const CATEGORIES = ['C1', 'C2', 'C3', 'C4', 'C5', 'C6', 'C7', 'C8'] as const;
export type Category = (typeof CATEGORIES)[number];

export const CATEGORY_NAMES: Record<string, string> = {
  C1: 'single obvious tool',
  C2: 'confusable tools',
  C3: 'argument-heavy',
  C4: 'arrays / nested',
  C5: 'abstention traps',
  C6: 'multi-turn carry-over',
  C7: 'catalog size 3/8/16/32',
  C8: 'parallel / multiple calls',
};

export { ArgRuleSchema, type ArgRule, type ExpectedCall };

const ArgsSchema = z.record(z.string(), z.unknown());

/** One call as written in a case file: Toolhound's `{tool, args}` or OpenAI-ish `{name, arguments}`. */
const CallRules = z.record(z.string(), ArgRuleSchema).optional();
export const CallInSchema = z.union([
  z.object({ tool: z.string().min(1), args: ArgsSchema.default({}), arg_rules: CallRules }).strict(),
  z.object({ name: z.string().min(1), arguments: ArgsSchema.default({}), arg_rules: CallRules }).strict(),
]);
export type CallIn = z.infer<typeof CallInSchema>;

export const FunctionDefSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

const InlineToolSchema = z.union([
  z.object({ type: z.literal('function'), function: FunctionDefSchema }).strict(),
  FunctionDefSchema.strict(),
]);

export const TurnSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }).strict(),
  z.object({ role: z.literal('user'), content: z.string() }).strict(),
  z
    .object({
      role: z.literal('assistant'),
      content: z.string().nullable().optional(),
      tool_call: CallInSchema.optional(),
      tool_calls: z.array(CallInSchema).min(1).optional(),
    })
    .strict()
    .refine((t) => !(t.tool_call && t.tool_calls), { message: 'give tool_call or tool_calls, not both' }),
  z.object({ role: z.literal('tool'), content: z.string(), name: z.string().optional() }).strict(),
]);
export type TurnIn = z.infer<typeof TurnSchema>;

export const CaseRowSchema = z
  .object({
    id: z
      .string()
      .min(1)
      .regex(/^[\w.-]+$/, 'ids use letters, digits, _ . - only'),
    cat: z.string().min(1),
    family: z.string().min(1).optional(),
    split: z.string().min(1).default('dev'),
    tools: z.array(z.union([z.string().min(1), InlineToolSchema])).min(1),
    turns: z.array(TurnSchema).min(1),
    expected: z.union([CallInSchema, z.array(CallInSchema).min(1)]).nullable(),
    arg_rules: z.record(z.string(), ArgRuleSchema).default({}),
    /** Content slot values that filled the phrasing (leakage lint); toolgauge's generated cases only. */
    slots: z.record(z.string(), z.string()).optional(),
    /** `<family>#<index>`: which phrasing made the user text (phrasing-coverage lint). */
    phrasing: z.string().optional(),
    /** Reference date for relative dates in the turns (YYYY-MM-DD). */
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be YYYY-MM-DD')
      .optional(),
    // Toolhound extras, kept for the record.
    n_tools: z.number().int().optional(),
    note: z.string().optional(),
  })
  .strict();
export type CaseRow = z.infer<typeof CaseRowSchema>;

/** A tool palette file: `name: {description, parameters}` (Toolhound's tools.yaml) or a list of OpenAI tools. */
export const PaletteMapSchema = z.record(
  z.string(),
  z.object({ description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }).strict(),
);
export const PaletteListSchema = z.array(InlineToolSchema);

/** A validated case, ready to run: tools resolved, turns as OpenAI messages with call ids. */
export interface ProbeCase {
  id: string;
  cat: string;
  family: string;
  split: string;
  tools: OpenAITool[];
  messages: ChatMessage[];
  /** null: the right answer is no call. */
  expected: ExpectedCall[] | null;
  rules: Record<string, ArgRule>;
  slots?: Record<string, string>;
  phrasing?: string;
  date?: string;
  note?: string;
  source: { file: string; line: number };
}

/** The assistant calls in a case's history (prior calls the model must see again). */
export function priorCalls(
  c: Pick<ProbeCase, 'messages'>,
): Array<{ index: number; name: string; arguments: Record<string, unknown> }> {
  const out: Array<{ index: number; name: string; arguments: Record<string, unknown> }> = [];
  c.messages.forEach((m, index) => {
    for (const tc of m.tool_calls ?? []) {
      let args: Record<string, unknown> = {};
      try {
        const v: unknown = JSON.parse(tc.function.arguments);
        if (v && typeof v === 'object' && !Array.isArray(v)) args = v as Record<string, unknown>;
      } catch {
        // case files are validated; a non-object never gets here
      }
      out.push({ index, name: tc.function.name, arguments: args });
    }
  });
  return out;
}
