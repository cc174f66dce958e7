import { parseReport, renderReport, type CommFormat } from './comm.ts';
import { clipTail, fitChunks, type Chunk } from './context.ts';
import type { MemberRun, TeamTask } from './member.ts';

/**
 * One report handed from an agent to others (peers, the manager, later stages, the vote), parsed once under the
 * run's communication format; or one delegation from the manager to a worker.
 */
export interface Handoff {
  from: string;
  role: string;
  round: number;
  kind: 'report' | 'delegation';
  /** Receivers that were actually shown it (a report left out for lack of budget is not handed off). */
  to: string[];
  format: CommFormat;
  ok: boolean;
  errors: string[];
}

export interface PreparedReport {
  run: MemberRun;
  record: Handoff;
  /** What a receiver sees: a header with the agent (and its answer, for answering roles), then the report. */
  text: string;
}

/**
 * Parse a run's final message as a report. A parsed report is passed on in its canonical rendering; one that does
 * not parse is passed on as its raw text (tail), as a model would read it anyway.
 */
export function prepareReport(task: TeamTask, run: MemberRun, reportClip: number): PreparedReport {
  const raw = task.reportPart(run.finalMessage).trim();
  const parsed = parseReport(raw, task.comm);
  const body = parsed.report && task.comm !== 'freeform' ? renderReport(parsed.report, task.comm) : raw;
  const who = `${run.agent}${run.agent.startsWith(run.role) ? '' : ` (${run.role})`}`;
  const head = run.answers ? `=== ${who} · answer: ${clipTail(run.answer ?? '(none)', 200)} ===` : `=== ${who} ===`;
  return {
    run,
    record: {
      from: run.agent,
      role: run.role,
      round: run.round,
      kind: 'report',
      to: [],
      format: task.comm,
      ok: parsed.ok,
      errors: parsed.errors,
    },
    text: `${head}\n${clipTail(body, reportClip)}`,
  };
}

/** Reports of runs that did not fail (a failed run has nothing to hand on). */
export function prepareReports(task: TeamTask, runs: readonly MemberRun[], reportClip: number): PreparedReport[] {
  return runs.filter((r) => r.error === null).map((r) => prepareReport(task, r, reportClip));
}

/** The context one receiver sees of `reports`, within `budget`; records the receiver on the reports it got. */
export function deliver(reports: readonly PreparedReport[], receiver: string, budget: number): string {
  const chunks: Chunk[] = reports.map((r, i) => ({ from: i, text: r.text }));
  const fitted = fitChunks(chunks, budget);
  for (const i of fitted.included) reports[i]!.record.to.push(receiver);
  return fitted.text;
}

export interface ParseTally {
  /** Reports handed to at least one receiver. */
  reports: number;
  parsed: number;
  /** parsed / reports; null when nothing was handed off. */
  rate: number | null;
  delegations: number;
  delegationsParsed: number;
}

export function tallyParses(handoffs: readonly Handoff[]): ParseTally {
  const reports = handoffs.filter((h) => h.kind === 'report' && h.to.length > 0);
  const delegations = handoffs.filter((h) => h.kind === 'delegation');
  const parsed = reports.filter((h) => h.ok).length;
  return {
    reports: reports.length,
    parsed,
    rate: reports.length ? parsed / reports.length : null,
    delegations: delegations.length,
    delegationsParsed: delegations.filter((h) => h.ok).length,
  };
}
