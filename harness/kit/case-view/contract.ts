import type { ScorerView, Section } from './model.ts';

/**
 * What a suite declares to show its cases in `toolgauge view` (`SuiteDefinition.caseView`): a pure mapping from one
 * case's journal line and trace to its evidence. The viewer adds what every case shows (the ledger's key, status and
 * reason; the harness error, the record-file lines and the journal line) and falls back to a generic view for a
 * suite without one.
 */

/** One case of one run, as the viewer read it. */
export interface CaseInput {
  suite: string;
  /** The journal line, already checked against the kit's and the suite's meta schema. */
  meta: Record<string, unknown>;
  /** The trace file's JSON (meta.trace), when there is one. */
  trace: unknown;
  /** The files the case view's `extraFiles` named, as JSON, under the same keys (a missing one is absent). */
  files?: Record<string, unknown>;
  /** Record file → this case's line in it. */
  records?: Record<string, unknown>;
}

/** A part of the trace that could not be read: the field (a path into the trace) and why. */
export interface CaseProblem {
  field: string;
  message: string;
}

/** One case as its suite shows it. */
export interface SuiteCase {
  /** `group=value`, for the ledger's tag filter. */
  tags: string[];
  /** The case's cause (an attribution's, Maze's recovery) for the ledger's cause filter, or null. */
  cause: string | null;
  input: string | null;
  expected: string | null;
  /** The answer (or a short rendering of the calls) the model gave: compared across runs. */
  predicted: string | null;
  scorers: ScorerView[];
  sections: Section[];
  /** Parts of the trace that did not have the expected shape: they cost only their sections, never the case. */
  problems: CaseProblem[];
}

export interface CaseView {
  /** The case's evidence. Pure and total on metas that passed the suite's schema. */
  map(input: CaseInput): SuiteCase;
  /**
   * Files beside the trace the mapping reads (Maze's judge evaluation), by key → path relative to the output
   * directory; the viewer reads them as JSON inside the directory and passes them as `CaseInput.files`.
   */
  extraFiles?(tracePath: string): Record<string, string>;
}
