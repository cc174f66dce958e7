import { prepareReports } from './handoff.ts';
import { runAll, runMember, type MemberSpec, type TeamTask } from './member.ts';
import type { TeamOptions } from './options.ts';
import type { TopologyResult } from './result.ts';
import { majorityVote } from './vote.ts';

/** N agents solve alone (seeds 0…N−1); the team answers what most of them answer. */
export async function runIndependent(task: TeamTask, o: TeamOptions): Promise<TopologyResult> {
  const role = o.roles[0]!;
  const specs: MemberSpec[] = Array.from({ length: o.agents }, (_, i) => ({
    agent: `${role}-${i}`,
    role,
    answers: true,
    round: 1,
    phase: 'solve',
    seed: i,
  }));
  const runs = await runAll(o.parallel, specs, (s) => runMember(task, s, ''));
  return voteOn(task, o, runs, runs);
}

/** The vote over `voters` (the last round), their reports recorded as handed to it. */
export function voteOn(
  task: TeamTask,
  o: TeamOptions,
  runs: TopologyResult['runs'],
  voters: TopologyResult['runs'],
  handoffs: TopologyResult['handoffs'] = [],
): TopologyResult {
  const reports = prepareReports(task, voters, o.reportClip);
  for (const r of reports) r.record.to.push('vote');
  const vote = majorityVote(voters.map((r) => ({ agent: r.agent, answer: r.answer, errored: r.error !== null })));
  const winner = vote.winner === null ? null : voters[vote.winner]!;
  return {
    runs,
    handoffs: [...handoffs, ...reports.map((r) => r.record)],
    vote,
    final: winner ? runs.indexOf(winner) : null,
    error: winner
      ? null
      : `no agent gave an answer (${voters.filter((r) => r.error).length} of ${voters.length} failed)`,
  };
}
