import { runCentralized } from './centralized.ts';
import { teamCost, type TeamCost } from './cost.ts';
import { runDecentralized } from './decentralized.ts';
import { tallyParses, type Handoff, type ParseTally } from './handoff.ts';
import { runIndependent } from './independent.ts';
import type { MemberRun, TeamTask } from './member.ts';
import type { TeamOptions } from './options.ts';
import type { TopologyResult } from './result.ts';
import { runSequential } from './sequential.ts';
import type { VoteRecord } from './vote.ts';

/** A team's whole work on one instance: every run, every hand-off, the vote, the cost. */
export interface TeamRun {
  topology: TeamOptions['topology'];
  comm: TeamOptions['comm'];
  agents: number;
  rounds: number;
  roles: string[];
  runs: MemberRun[];
  handoffs: Handoff[];
  vote: VoteRecord | null;
  /** Index into runs of the run whose final message is the team's answer; null when the team failed. */
  final: number | null;
  error: string | null;
  cost: TeamCost;
  parse: ParseTally;
  wallMs: number;
}

const TOPOLOGIES: Record<TeamOptions['topology'], (task: TeamTask, o: TeamOptions) => Promise<TopologyResult>> = {
  independent: runIndependent,
  decentralized: runDecentralized,
  centralized: runCentralized,
  sequential: runSequential,
};

/**
 * Run a team on one instance. Endpoint failures of single members are part of the result (a failed voter does
 * not vote; a failed worker sends no report); anything else thrown is a harness bug and propagates.
 */
export async function runTeam(task: TeamTask, o: TeamOptions): Promise<TeamRun> {
  const started = performance.now();
  const r = await TOPOLOGIES[o.topology](task, o);
  const wallMs = performance.now() - started;
  return {
    topology: o.topology,
    comm: o.comm,
    agents: o.agents,
    rounds: o.rounds,
    roles: o.lead ? [o.lead, ...o.roles] : o.roles,
    ...r,
    cost: teamCost(r.runs, wallMs),
    parse: tallyParses(r.handoffs),
    wallMs,
  };
}
