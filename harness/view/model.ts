import type { CaseDetail, CaseRow } from '../kit/case-view/model.ts';
import type { ComparisonRow } from '../report/comparison-row.ts';

/**
 * The viewer's data: what `toolgauge view` reads from one or more output directories, reduced to one shape for
 * every suite. The page (harness/view/page) renders only this; every string in it is data from a run (model text,
 * ids, tags) and is shown as text, never as markup. A case's parts are the kit's (harness/kit/case-view/model.ts),
 * so a suite's own case view can build them.
 */

/** A problem found while reading a run: shown in the page, never a crash. */
export interface LoadProblem {
  file: string;
  /** 1-based line of a JSONL file. */
  line?: number;
  field?: string;
  message: string;
}

export type {
  CaseDetail,
  CaseRow,
  CaseStatus,
  ScorerView,
  Section,
  ToolCallView,
  TurnView,
} from '../kit/case-view/model.ts';
/** A case's detail that only says why its parts are not shown (not loaded, unreadable): one text section. */
export function noticeDetail(key: string, title: string, text: string): CaseDetail {
  return { key, input: null, expected: null, predicted: null, scorers: [], sections: [{ kind: 'text', title, text }] };
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
  /** The kept runs of this run's directory (`toolgauge eval --watch`), newest first; absent or empty: none. */
  history?: HistoryView[];
}

/** One kept run in a run's history. */
export interface HistoryView {
  /** The kept run's folder name: its UTC time. */
  name: string;
  startedAt: string | null;
  model: string | null;
  passRate: number | null;
  problem: string | null;
  /** The page shows this kept run (in place of the latest). */
  shown: boolean;
  /** The served page's `open` query value that shows it; null in an exported page. */
  open: string | null;
}

export interface ComparisonView {
  baseline: string;
  candidate: string;
  shared: number;
  onlyInBaseline: number;
  onlyInCandidate: number;
  /** One per metric, as `report --compare` computes it. */
  rows: ComparisonRow[];
}

export interface ViewData {
  schema: 'toolgauge.view/1';
  runs: RunView[];
  /** Paired comparisons of every run with the first, or why there are none. */
  comparisons: ComparisonView[];
  comparisonRefused: string | null;
  problems: LoadProblem[];
  /** Served by `toolgauge view`: the runs' version when the page was built; the page polls `/version` and reloads
   * when it differs (a run ended). Absent in an exported page. */
  liveVersion?: string;
  /** The served viewer's paged mode: the rows come from `/index` a page at a time, a case's detail from `/case`
   * when it is opened (harness/view/served.ts). Absent: every row and detail is in the page. */
  paged?: { build: string; totals: number[]; pageSize: number };
  /** An exported page that holds only the first cases of the ledger (harness/view/export.ts): how many it left out
   * (rows, over every run) of how many, and its budget in bytes. */
  leftOut?: { cases: number; of: number; budgetBytes: number };
}
