export const FAMILIES = [
  'hermes',
  'qwen3_xml',
  'llama_json',
  'llama_pythonic',
  'mistral',
  'granite',
  'gemma4',
  'deepseek',
  'functionary',
] as const;
export type Family = (typeof FAMILIES)[number];

export interface ParsedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** OpenAI function schema (the `function` member of a tool, or the tool itself when it has a name). */
export interface ToolSchema {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface ParseResult {
  tier: 'strict' | 'lenient' | 'none';
  format: Family | 'json' | 'python' | null;
  calls: ParsedCall[];
  attempted: boolean;
  truncated: boolean;
  notes: string[];
}

export interface ParseOptions {
  tier?: 'strict' | 'lenient';
  format?: 'auto' | Family;
  tools?: ToolSchema[];
}

/** A call found at a place in the text (positions let the lenient tier merge and order finds). */
export interface Located extends ParsedCall {
  start: number;
  end: number;
}

/** What one family parser reports. */
export interface FamilyResult {
  calls: Located[];
  /** every call-shaped block parsed; in the strict tier any failure means no calls */
  ok: boolean;
  /** the family's markers (or shape) were seen */
  attempted: boolean;
  /** a block was cut off by the end of the text */
  truncated: boolean;
  /** regions of the text the family consumed (the lenient scan skips them) */
  spans: Array<[number, number]>;
}

export interface ParseCtx {
  loose: boolean;
  /** repairs made (lenient tier only) */
  notes: Set<string>;
  tools?: ToolSchema[];
  /** the caller named the family (not auto-detection) */
  explicit: boolean;
}

export function emptyResult(): FamilyResult {
  return { calls: [], ok: true, attempted: false, truncated: false, spans: [] };
}
