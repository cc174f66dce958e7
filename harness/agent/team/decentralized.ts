import { clipTail } from './context.ts';
import { deliver, prepareReports, type Handoff } from './handoff.ts';
import { voteOn } from './independent.ts';
import { runAll, runMember, type MemberRun, type MemberSpec, type TeamTask } from './member.ts';
import type { TeamOptions } from './options.ts';
import type { TopologyResult } from './result.ts';

/**
 * N debaters over R rounds. Round 1 is independent solving; from round 2 each debater sees its own previous
 * answer and the others' previous reports (answer and reasoning), cut to the report clip and the context budget,
 * and may revise. The team answers the vote of the last round.
 */
export async function runDecentralized(task: TeamTask, o: TeamOptions): Promise<TopologyResult> {
  const role = o.roles[0]!;
  const all: MemberRun[] = [];
  const handoffs: Handoff[] = [];
  let previous: MemberRun[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    const specs: MemberSpec[] = Array.from({ length: o.agents }, (_, i) => ({
      agent: `${role}-${i}`,
      role,
      answers: true,
      round,
      phase: 'solve',
      seed: (round - 1) * o.agents + i,
    }));
    const reports = prepareReports(task, previous, o.reportClip);
    const contexts = specs.map((s, i) => {
      if (round === 1) return '';
      const own = previous[i];
      const others = reports.filter((r) => r.run.agent !== s.agent);
      return debateContext(
        round,
        o.rounds,
        own?.error === null ? own.finalMessage : '',
        deliver(others, s.agent, o.contextBudget),
        o.reportClip,
      );
    });
    handoffs.push(...reports.map((r) => r.record));
    const run = task.member ?? runMember;
    const runs = await runAll(o.parallel, specs, (s, i) => run(task, s, contexts[i]!));
    all.push(...runs);
    previous = runs;
  }
  return voteOn(task, o, all, previous, handoffs);
}

function debateContext(round: number, rounds: number, own: string, others: string, clip: number): string {
  return [
    `Debate round ${round} of ${rounds}.`,
    `Your answer in the previous round:\n${own ? clipTail(own, clip) : '(none: your previous run failed)'}`,
    `The other agents' answers in the previous round:\n${others || '(none available)'}`,
    'Check their evidence against yours. Change your answer only if theirs is stronger.',
  ].join('\n\n');
}
