// Shapes of the Maze tool library. A tool is a pure function of its arguments and of the run's history (the
// clean calls made so far in this run), so two runs with the same calls see the same results.

export type ToolCategory = 'source' | 'processor' | 'action';

export const DOMAINS = [
  'markets',
  'fx',
  'weather',
  'travel',
  'calendar',
  'banking',
  'retail',
  'shipping',
  'messaging',
  'math',
  'crypto',
  'geo',
] as const;
export type Domain = (typeof DOMAINS)[number];

export type JsonSchema = Record<string, unknown>;
export type ToolArgs = Record<string, unknown>;
export type ToolResult = Record<string, unknown>;

/** One clean call earlier in the same run. Stateful tools derive balances, stock and outboxes from these. */
export interface HistoryEntry {
  name: string;
  args: ToolArgs;
  result: ToolResult;
}

export interface ToolContext {
  history: readonly HistoryEntry[];
}

/**
 * Plausibility invariants of a tool's output: domain knowledge an agent is expected to have ("stock cannot be
 * negative", "the quote is for the ticker I asked for"). The implicit-corruption detectors read these and the
 * agent-visible result only — never task data.
 */
export interface ToolChecks {
  /** Top-level numeric output fields that can never be negative. */
  nonNegative?: string[];
  /** Output field → the argument it must repeat (case-insensitive for strings, exact for numbers). */
  echo?: Record<string, string>;
  /** Output `total` must equal the sum of `items[*][amount]` (to the cent). */
  sums?: Array<{ items: string; amount: string; total: string }>;
  /** ISO date/time in output `field` must lie within a year of `arg` (or of the library's today without one). */
  timestamp?: { field: string; arg?: string };
  /** Plausible magnitude of a numeric output field; the ratio hi/lo is < 1000 so a ×1000 unit slip leaves it. */
  ranges?: Record<string, [number, number]>;
}

export interface MazeTool {
  name: string;
  /** One of DOMAINS for the built-in tools; a user's library file may name its own. */
  domain: string;
  category: ToolCategory;
  description: string;
  parameters: JsonSchema;
  output: JsonSchema;
  /** Members of one substitute set return mutually consistent outputs for the same arguments. */
  substituteSet?: string;
  checks: ToolChecks;
  /** The argument that names the entity, with its valid values (used to build entity-swap corruptions). */
  entity?: { arg: string; values: () => readonly string[] };
  /** The main numeric output field (a stale snapshot carries an older value of it). */
  primary?: string;
  /** Implicit corruptions (detector names) this tool may take in P3/P4; absent: every one its checks catch. */
  failureModes?: readonly string[];
  run(args: ToolArgs, ctx: ToolContext): ToolResult;
}

export function toolError(message: string): ToolResult {
  return { error: message };
}
