import { deliver, prepareReport, type PreparedReport } from './handoff.ts';
import { runMember, type MemberRun, type TeamTask } from './member.ts';
import type { TeamOptions } from './options.ts';
import type { TopologyResult } from './result.ts';

/**
 * A pipeline: each stage runs its own tool loop and sees the reports of the stages before it (newest kept first
 * when the budget is short); the last stage gives the team's answer.
 */
export async function runSequential(task: TeamTask, o: TeamOptions): Promise<TopologyResult> {
  const runs: MemberRun[] = [];
  const reports: PreparedReport[] = [];
  for (let k = 0; k < o.roles.length; k++) {
    const role = o.roles[k]!;
    const last = k === o.roles.length - 1;
    const earlier = deliver(reports, role, o.contextBudget);
    const context =
      `You are stage ${k + 1} of ${o.roles.length} in a pipeline (${o.roles.join(' → ')}).` +
      (k === 0
        ? ' You are the first stage.'
        : `\n\nReports from the earlier stages, oldest first:\n${earlier || '(none available)'}`);
    const run = await runMember(task, { agent: role, role, answers: last, round: 1, phase: 'solve', seed: k }, context);
    runs.push(run);
    if (!last && run.error === null) reports.push(prepareReport(task, run, o.reportClip));
  }
  const final = runs.at(-1)!;
  return {
    runs,
    handoffs: reports.map((r) => r.record),
    vote: null,
    final: final.error === null ? runs.length - 1 : null,
    error: final.error === null ? null : `the last stage (${final.role}) failed: ${final.error}`,
  };
}
