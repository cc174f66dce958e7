/**
 * The viewer's data: what `toolgauge view` reads from one or more output directories, reduced to one shape for
 * every suite. The page (harness/view/page) renders only this; every string in it is data from a run (model text,
 * ids, tags) and is shown as text, never as markup.
 */

/** A problem found while reading a run: shown in the page, never a crash. */
export interface LoadProblem {
  file: string;
  /** 1-based line of a JSONL file. */
  line?: number;
  field?: string;
  message: string;
}

export type CaseStatus = 'pass' | 'fail' | 'error';

/** One row of the case ledger (small: the page holds every row of every run). */
export interface CaseRow {
  /** `id#trial`: the key that pairs a case across runs. */
  key: string;
  id: string;
  trial: number;
  order: number;
  status: CaseStatus;
  reason: string | null;
  /** `group=value`, for the tag filter and the breakdowns. */
  tags: string[];
  /** The attribution's cause (probe, BFCL), Maze's recovery, or null. */
  cause: string | null;
  /** The answer (or a short rendering of the calls) the model gave; compared across runs. */
  predicted: string | null;
  /** Index of the case's detail block in the page (`d<run>-<detail>`). */
  detail: number;
}

export interface ToolCallView {
  name: string;
  /** The arguments pretty-printed when they are JSON, else as the model wrote them. */
  args: string;
  id?: string;
}

/** One message of a conversation. */
export interface TurnView {
  role: string;
  text: string | null;
  calls: ToolCallView[];
  /** A tool result that was cut to a budget (its marker is in the text). */
  truncated: boolean;
  /** For a tool result: the call it answers. */
  toolCallId?: string;
  /** For an assistant turn: tokens, latency, attempts and retries of the request that produced it. */
  stats?: string;
}

/** A part of the case view; each suite's mapping (harness/view/sections.ts) says which. */
export type Section =
  | { kind: 'text'; title: string; text: string }
  | { kind: 'pairs'; title: string; rows: Array<[string, string]> }
  | { kind: 'table'; title: string; head: string[]; rows: string[][] }
  | { kind: 'conversation'; title: string; turns: TurnView[] }
  | { kind: 'json'; title: string; json: string };

export interface ScorerView {
  name: string;
  value: string;
  reason: string | null;
}

/** Everything about one case of one run (parsed by the page only when the case is opened). */
export interface CaseDetail {
  key: string;
  input: string | null;
  expected: string | null;
  predicted: string | null;
  scorers: ScorerView[];
  sections: Section[];
}

export interface MetricView {
  name: string;
  value: number | null;
  lo: number | null;
  hi: number | null;
  n: number;
  denominator: string;
  method: string;
}

export interface BreakdownView {
  group: string;
  /** Metric names, the columns. */
  metrics: string[];
  rows: Array<{ key: string; cells: Array<MetricView | null> }>;
}

export interface RunView {
  label: string;
  dir: string;
  suite: string;
  /** The simulator notice, or null for a model's run. */
  notice: string | null;
  header: Array<[string, string]>;
  settings: Array<[string, string]>;
  counts: Array<[string, number]>;
  metrics: MetricView[];
  breakdowns: BreakdownView[];
  gate: { expression: string; passed: boolean; reasons: string[] } | null;
  /** Cases per cause (attribution, recovery), counted from the ledger: cause → [cases, of them failing or erring]. */
  causes: Array<[string, number, number]>;
  /** The summary's suite-specific blocks (attribution tallies, activity, …) as pretty JSON, by name. */
  extra: Array<[string, string]>;
  /** SVG charts, shown as images (an image's SVG runs no script). */
  charts: Array<{ label: string; svg: string }>;
  rows: CaseRow[];
  problems: LoadProblem[];
}

/** One row of the paired comparison, as `report --compare` computes it. */
export interface ComparisonRowView {
  metric: string;
  baseline: number;
  candidate: number;
  diff: number;
  lo: number;
  hi: number;
  test: string;
  discordant: string | null;
  pAdjusted: number | null;
  verdict: string;
}

export interface ComparisonView {
  baseline: string;
  candidate: string;
  shared: number;
  onlyInBaseline: number;
  onlyInCandidate: number;
  rows: ComparisonRowView[];
}

export interface ViewData {
  schema: 'toolgauge.view/1';
  runs: RunView[];
  /** Paired comparisons of every run with the first, or why there are none. */
  comparisons: ComparisonView[];
  comparisonRefused: string | null;
  problems: LoadProblem[];
}
