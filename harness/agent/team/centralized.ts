import { deliver, prepareReports, type Handoff, type PreparedReport } from './handoff.ts';
import { runAll, runMember, type MemberRun, type TeamTask } from './member.ts';
import type { TeamOptions } from './options.ts';
import type { TopologyResult } from './result.ts';

/** The marker the simulator (and a reader of traces) recognises a delegation step by. */
export const DELEGATION_MARKER = 'DELEGATION REQUEST';
export const DELEGATION_FROM_MANAGER = 'DELEGATION FROM THE MANAGER:';

/**
 * A manager and its workers (a star). Each round the manager writes one delegation per worker (a step without
 * tools); the workers, who see only their own delegation, run their own tool loops and report back; then the
 * manager, shown the reports, runs its own tool loop and gives the team's answer. A worker whose delegation is
 * missing or empty gets a default instruction, and the miss is recorded.
 */
export async function runCentralized(task: TeamTask, o: TeamOptions): Promise<TopologyResult> {
  const manager = o.lead ?? 'manager';
  const workers = o.roles;
  const runs: MemberRun[] = [];
  const handoffs: Handoff[] = [];
  let reports: PreparedReport[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    const earlier = round > 1 ? deliver(reports, manager, o.contextBudget) : '';
    const delegate = await runMember(
      task,
      { agent: manager, role: manager, answers: false, round, phase: 'delegate', seed: workers.length + round },
      delegationRequest(task, workers, round, earlier),
      { withoutTools: true, commContract: '' },
    );
    runs.push(delegate);
    if (delegate.error !== null)
      return failed(runs, handoffs, `the manager failed while delegating: ${delegate.error}`);
    const found = parseDelegations(delegate.finalMessage, workers);
    for (const w of workers) {
      handoffs.push({
        from: manager,
        role: manager,
        round,
        kind: 'delegation',
        to: [w],
        format: task.comm,
        ok: found.has(w),
        errors: found.has(w) ? [] : [`no non-empty <delegate to="${w}"> block`],
      });
    }
    const workerRuns = await runAll(o.parallel, workers, (w, i) =>
      runMember(
        task,
        { agent: w, role: w, answers: false, round, phase: 'solve', seed: i },
        `${DELEGATION_FROM_MANAGER}\n${found.get(w) ?? DEFAULT_DELEGATION}`,
      ),
    );
    runs.push(...workerRuns);
    reports = prepareReports(task, workerRuns, o.reportClip);
    handoffs.push(...reports.map((r) => r.record));
  }
  const synthesis = await runMember(
    task,
    { agent: manager, role: manager, answers: true, round: o.rounds, phase: 'synthesize', seed: workers.length },
    `Your workers' reports:\n${deliver(reports, manager, o.contextBudget) || '(no worker produced a report)'}\n\n` +
      'Check the reports against each other and against the tools, then give the final answer.',
  );
  runs.push(synthesis);
  if (synthesis.error !== null) return failed(runs, handoffs, `the manager failed while answering: ${synthesis.error}`);
  return { runs, handoffs, vote: null, final: runs.length - 1, error: null };
}

const DEFAULT_DELEGATION = 'Work on the question within your role and report what you found.';

function failed(runs: MemberRun[], handoffs: Handoff[], error: string): TopologyResult {
  return { runs, handoffs, vote: null, final: null, error };
}

function delegationRequest(task: TeamTask, workers: readonly string[], round: number, earlier: string): string {
  const tools = task.executor
    .tools()
    .map((t) => `- ${t.function.name}: ${(t.function.description ?? '').split('\n')[0]}`);
  return [
    DELEGATION_MARKER,
    `Round ${round}. Do not solve the task in this step: write one instruction for each of your workers.`,
    `Workers: ${workers.join(', ')}`,
    `Tools the workers can call:\n${tools.join('\n') || '(none)'}`,
    ...(earlier ? [`Your workers' reports from the previous round:\n${earlier}`] : []),
    'Write each instruction as <delegate to="WORKER">instruction</delegate>, one block per worker, and nothing else.',
  ].join('\n\n');
}

/** worker → instruction, from the manager's `<delegate to="…">` blocks (first block per worker; empty ones skipped). */
export function parseDelegations(text: string, workers: readonly string[]): Map<string, string> {
  const known = new Set(workers);
  const out = new Map<string, string>();
  for (const m of text.matchAll(/<delegate\s+to\s*=\s*["']([^"']+)["']\s*>([\s\S]*?)<\/delegate>/gi)) {
    const w = m[1]!.trim();
    const body = m[2]!.trim();
    if (known.has(w) && body && !out.has(w)) out.set(w, body);
  }
  return out;
}

/** The worker names a delegation request lists (the simulator answers it with one block per worker). */
export function delegationWorkers(request: string): string[] | undefined {
  if (!request.includes(DELEGATION_MARKER)) return undefined;
  const line = /^Workers: (.*)$/m.exec(request)?.[1];
  return line
    ? line
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}
