import type { Budget, ReadOptions } from './jsonish.ts';

/** How a JSON value is read: exact JSON, loose, loose with doubled braces read as single ones. */
export type ReadKind = 'json' | 'loose' | 'undouble';

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
  'gpt_oss',
  'glm',
  'kimi_k2',
  'deepseek_dsml',
  'minimax',
  'seed_oss',
  'lfm2',
  'apertus',
  'minicpm',
  'command_r',
  'nemotron',
  'xlam',
  'firefunction',
  'phi4_mini',
  'jamba',
  'internlm',
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
  /** The calls outside the reasoning, in text order. Call-shaped text inside the reasoning is never a call. */
  calls: ParsedCall[];
  attempted: boolean;
  truncated: boolean;
  notes: string[];
  /** The visible text outside the calls and the reasoning (markup tokens removed, trimmed), as servers return it. */
  content: string;
  /** The thinking channel (`<think>…</think>`, `[THINK]`, harmony `analysis`, …), '' when there is none. */
  reasoning: string;
  /** Call-shaped pieces that could not be read while other calls were kept (e.g. one bad call in a list). */
  rejected: string[];
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
  /** regions of the text the family consumed (the lenient scan skips them; content excludes them) */
  spans: Array<[number, number]>;
  /** markup outside the calls that is not content (harmony headers, response wrappers) */
  frame?: Array<[number, number]>;
  /** text of call-shaped pieces that were skipped while other calls were kept */
  rejected?: string[];
}

/**
 * Shared state of one parseToolCalls call: a work counter that bounds the total characters all readers may
 * examine (linear in the input) and memoised JSON reads (a value starting at a position reads the same whoever
 * asks, so nested candidates are never re-read).
 */
export interface Scan {
  text: string;
  /**
   * The reader options per reading mode, made on first use: for reads of `text` itself they carry the mode's memo of
   * JSON reads; `otherReads`, for reads of other strings, only the budget.
   */
  reads: Partial<Record<ReadKind, ReadOptions>>;
  otherReads?: Partial<Record<ReadKind, ReadOptions>>;
  budget: Budget;
}

export interface ParseCtx {
  loose: boolean;
  /** repairs made (lenient tier only) */
  notes: Set<string>;
  tools?: ToolSchema[];
  /** the caller named the family (not auto-detection) */
  explicit: boolean;
  scan?: Scan;
}

/**
 * Every optional field is present from the start: results of every family then share one object shape, and the parse
 * loop that reads them is not compiled again for each new shape.
 */
export function emptyResult(): FamilyResult {
  return { calls: [], ok: true, attempted: false, truncated: false, spans: [], frame: undefined, rejected: undefined };
}

/** `r` with some fields changed, in the shape emptyResult() gives (an object spread makes a shape of its own). */
export function resultWith(
  r: FamilyResult,
  change: { ok?: boolean; truncated?: boolean; calls?: Located[] },
): FamilyResult {
  return {
    calls: change.calls ?? r.calls,
    ok: change.ok ?? r.ok,
    attempted: r.attempted,
    truncated: change.truncated ?? r.truncated,
    spans: r.spans,
    frame: r.frame,
    rejected: r.rejected,
  };
}

/** `ctx` with notes of its own, in the shape the parse gives every context (a spread would make another shape). */
export function withNotes(ctx: ParseCtx, notes: Set<string>): ParseCtx {
  return { loose: ctx.loose, notes, tools: ctx.tools, explicit: ctx.explicit, scan: ctx.scan };
}
