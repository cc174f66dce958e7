import { z } from 'zod';
import { COMM_FORMATS } from './comm.ts';

export const TEAM_TOPOLOGIES = ['independent', 'decentralized', 'centralized', 'sequential'] as const;
export type TeamTopology = (typeof TEAM_TOPOLOGIES)[number];

/**
 * What `agents` and `rounds` mean, and their defaults:
 * - independent:   agents = solvers that vote (5: odd, so a two-answer vote has no tie); no rounds.
 * - decentralized: agents = debaters (3), rounds = debate rounds (2; round 1 is independent solving).
 * - centralized:   agents = workers under the manager (3: planner, caller, validator); rounds = delegation rounds
 *                  (1); the manager is one more agent.
 * - sequential:    agents = pipeline stages (4: planner → caller → checker → verifier); no rounds.
 */
export const TEAM_DEFAULTS: Record<TeamTopology, { agents: number; rounds: number; usesRounds: boolean }> = {
  independent: { agents: 5, rounds: 1, usesRounds: false },
  decentralized: { agents: 3, rounds: 2, usesRounds: true },
  centralized: { agents: 3, rounds: 1, usesRounds: true },
  sequential: { agents: 4, rounds: 1, usesRounds: false },
};

export const TeamOptionsInput = z.object({
  topology: z.enum(TEAM_TOPOLOGIES),
  agents: z.number().int().min(1).max(32).optional(),
  rounds: z.number().int().min(1).max(10).optional(),
  comm: z.enum(COMM_FORMATS).default('freeform'),
  /** Characters of other agents' reports one agent is shown (the reference's 5000). */
  contextBudget: z.number().int().min(0).default(5000),
  /** Characters kept of one report (its tail; the reference's 1200). */
  reportClip: z.number().int().min(1).default(1200),
  /** Members of one step run concurrently (their order in traces and votes is fixed regardless). */
  parallel: z.boolean().default(true),
});
export type TeamOptionsInput = z.input<typeof TeamOptionsInput>;

export interface TeamOptions {
  topology: TeamTopology;
  agents: number;
  rounds: number;
  comm: (typeof COMM_FORMATS)[number];
  contextBudget: number;
  reportClip: number;
  parallel: boolean;
  /** centralized: the workers; sequential: the stages in order; else the one role every member plays. */
  roles: string[];
  /** centralized: the manager's role. */
  lead?: string;
}

/**
 * A suite's roster per topology. `pool` lists candidate roles by priority (the first `agents` are taken);
 * `order`, when given, is the pipeline order the taken roles are put in (sequential).
 */
export interface Roster {
  independent: string;
  decentralized: string;
  centralized: { manager: string; pool: readonly string[] };
  sequential: { pool: readonly string[]; order: readonly string[] };
}

/** Validate the options, apply the topology's defaults and pick the roles; a bad value throws a one-line Error. */
export function resolveTeamOptions(input: TeamOptionsInput, roster: Roster): TeamOptions {
  const parsed = TeamOptionsInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`team options: ${issue.path.join('.')}: ${issue.message}`);
  }
  const o = parsed.data;
  const d = TEAM_DEFAULTS[o.topology];
  const agents = o.agents ?? d.agents;
  const rounds = d.usesRounds ? (o.rounds ?? d.rounds) : 1;
  const base = { ...o, agents, rounds };
  switch (o.topology) {
    case 'independent':
      return { ...base, roles: [roster.independent] };
    case 'decentralized':
      return { ...base, roles: [roster.decentralized] };
    case 'centralized':
      return {
        ...base,
        roles: take(roster.centralized.pool, agents, 'centralized workers'),
        lead: roster.centralized.manager,
      };
    case 'sequential': {
      const taken = new Set(take(roster.sequential.pool, agents, 'sequential stages'));
      return { ...base, roles: roster.sequential.order.filter((r) => taken.has(r)) };
    }
  }
}

function take(pool: readonly string[], n: number, what: string): string[] {
  if (n > pool.length) throw new Error(`team options: agents: at most ${pool.length} ${what} (got ${n})`);
  return pool.slice(0, n);
}
