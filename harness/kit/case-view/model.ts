/**
 * The case view's model: one case of one run as the viewer shows it (a ledger row and the detail's parts). It sits
 * in the kit so each suite can describe its own case view (harness/<suite>/case-view.ts) without reaching up into the
 * viewer; the viewer (harness/view/model.ts) re-exports it beside the run-level shapes. Every string in it is data
 * from a run and is shown as text, never as markup.
 */

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

/** A part of the case view; each suite's case view (harness/<suite>/case-view.ts) says which. */
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
