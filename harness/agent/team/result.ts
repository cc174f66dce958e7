import type { Handoff } from './handoff.ts';
import type { MemberRun } from './member.ts';
import type { VoteRecord } from './vote.ts';

/** What a topology produced on one instance, before costs and tallies are added. */
export interface TopologyResult {
  /** Every run of every agent, in the order they were started. */
  runs: MemberRun[];
  handoffs: Handoff[];
  vote: VoteRecord | null;
  /** Index into runs of the run whose final message is the team's answer; null on a team failure. */
  final: number | null;
  error: string | null;
}
