// API-Bank's environment and scorer: the API classes over their init databases, each with its own correctness check,
// the gold replay, and ToolSearcher's frozen-cache / keyword scorers. Semantics follow API-Bank's `apis/` and
// `lv3_apis/` classes and the reference runner's score_prediction (docs/apibank-environment.md).
import type { PyValue } from '../../core/pyliteral/index.ts';

/** A JSON value as read from the data files (dialogues, init databases, recorded results). */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** API-Bank's level: 1 (given descriptions), 2 (ToolSearcher then call), 3 (plan, retrieve, call; lv3_apis). */
export type ApiBankLevel = '1' | '2' | '3';

/** One recorded API row: L1/L2 rows as in the dialogue files; L3 steps as the reference turns them into rows
 * (`param_dict` = the step's `input`, `result` = the step's `output`, which is the whole recorded result). */
export interface ApiTurn {
  api_name: string;
  param_dict: Record<string, Json>;
  result: Json; // {api_name, input, output, exception} as recorded
}

/** What scoring needs of a task. The suite's task type extends this. */
export interface ApiBankTask {
  id: string;
  level: ApiBankLevel;
  /** Every API row before the gold one (ToolSearcher rows included; the replay skips them). */
  prior_api_turns: ApiTurn[];
  ground_truth: ApiTurn;
  /** Sorted set of every API name of the dialogue (L1/L2: the whole file; L3: the sample). */
  api_names: string[];
}

/** A predicted call as extracted and parsed from a reply: values by Python literal rules, after the reference's
 * normalisation (a string starting with `[`, `{` or `(` literal-evaluated when it parses). */
export interface ApiCall {
  name: string;
  args: Record<string, PyValue>;
}

/** The init databases keyed by file stem (Account, Agenda, ...), as Python's json.load reads them (key order kept,
 * `1.0` a float). Read with loadDatabases; scoring deep-copies a table per API object and never mutates these. */
export interface Databases {
  readonly dir: string;
  readonly tables: ReadonlyMap<string, PyValue>;
}

/** The reference's frozen ToolSearcher data for one level (derived/toolsearcher_frozen_level{2,3}.json). */
export interface FrozenToolSearcher {
  level: '2' | '3';
  /** Normalised keywords -> recorded output (the first occurrence), as Python values. */
  outputsByKeyword: Record<string, PyValue>;
  /** API name -> its description dict. */
  catalog: Record<string, PyValue>;
  searchItems: Array<{ name: string; desc_for_search: string }>;
}

/** Request to an embedding-based ToolSearcher fallback: which catalog item is nearest the keywords? */
export interface EmbeddingRequest {
  level: '2' | '3';
  keywords: string;
  /** The catalog in the reference's order, with the text it embeds. */
  items: Array<{ name: string; desc_for_search: string }>;
}
/** Returns the name of the catalog item with the highest cosine similarity (> 0), or null for none. */
export type EmbeddingFallback = (req: EmbeddingRequest) => string | null;

export type ToolSearcherMode = 'official' | 'keyword';

export interface ScoreOptions {
  /** ToolSearcher scorer for gold-ToolSearcher tasks: 'official' (frozen cache, then embeddings) or 'keyword'. */
  toolSearcher: ToolSearcherMode;
  /** From loadDatabases. */
  databases: Databases;
  /** Frozen ToolSearcher data by level, needed by 'official' for L2/L3 ToolSearcher tasks. */
  frozen?: Partial<Record<'2' | '3', FrozenToolSearcher>>;
  /** Embedding fallback for a frozen-cache miss; without it a miss is undetermined (correct: null). */
  embeddingFallback?: EmbeddingFallback;
}

export type ScoreStage = 'parse' | 'api_name' | 'score';

export interface ScoreResult {
  /** true/false as the reference decides; null = undetermined: a ToolSearcher cache miss without embeddings, an
   * API needing the network or absent modules (Dictionary, SearchEngine, Translate), or a Calculator formula the
   * reference never finishes. `reason` then starts with "undetermined:". */
  correct: boolean | null;
  stage: ScoreStage;
  /** null when correct; else the reference's error text, e.g. "API result mismatch",
   * "AssertionError: invalid parameter name. parameter: x", "TypeError: ...". */
  reason: string | null;
  /** The executed result {api_name, input, output, exception} (Python values) when execution succeeded. */
  predictedResult?: PyValue;
  goldResult?: Json;
}

export { loadDatabases } from './databases.ts';
export { loadFrozenToolSearcher } from './toolsearcher.ts';
export { commandEmbeddingFallback } from './embedding-command.ts';
export { normalizeKeywords } from './toolsearcher.ts';
export { normalizeParams, normalizeValue } from './normalize.ts';
export { scoreTask, replayGold } from './score.ts';
