import { TEAM_DEFAULTS } from '../agent/team/options.ts';
import type { Comm, Framework, Topology } from './settings.ts';

/**
 * The reference's experiment grid for ToolHop (its three sweep scripts) in toolgauge's terms, the cell a run's
 * settings resolve to, and the style name the reference gives each cell's output folder. docs/toolhop-reference.md
 * lists the grid; `--allow-any-cell` runs a cell outside it.
 *
 * The reference counts a team's size r with the manager (centralized: 1 manager + r−1 workers); toolgauge's
 * `--agents` counts the workers. Its grid: every topology at its baseline (r = 4, freeform; decentralized 2 rounds,
 * centralized one delegation round), r ∈ {2, 4, 8, 10} for the four teams, and the three report formats at r = 4.
 */
export const REFERENCE_SIZES = [2, 4, 8, 10] as const;
export const REFERENCE_BASELINE = 4;
/** The reference's format names; toolgauge's `structured` is its `structured_soft`. */
const REFERENCE_FORMAT: Record<Comm, string> = {
  freeform: 'freeform',
  semi_structured: 'semi_structured',
  structured: 'structured_soft',
};

type Team = Exclude<Topology, 'single'>;

/** toolgauge's `--agents` for a reference team size r. */
export const agentsForSize = (t: Team, r: number) => (t === 'centralized' ? r - 1 : r);
/** The reference's team size r for toolgauge's `--agents`. */
export const sizeOfAgents = (t: Team, agents: number) => (t === 'centralized' ? agents + 1 : agents);

/** ToolHop's default team: the reference's baseline cell (4 solvers; 4 debaters × 2 rounds; manager + 3; 4 stages). */
export const TOOLHOP_TEAM_DEFAULTS: Record<Team, { agents: number; rounds: number }> = {
  independent: { agents: agentsForSize('independent', REFERENCE_BASELINE), rounds: 1 },
  decentralized: { agents: agentsForSize('decentralized', REFERENCE_BASELINE), rounds: 2 },
  centralized: { agents: agentsForSize('centralized', REFERENCE_BASELINE), rounds: 1 },
  sequential: { agents: agentsForSize('sequential', REFERENCE_BASELINE), rounds: 1 },
};

/** A run's cell, defaults applied (rounds only where the topology has them). */
export interface Cell {
  topology: Topology;
  agents: number;
  rounds: number;
  comm: Comm;
  /** Unset: toolgauge's tool loop (the reference's LangGraph runners). */
  framework?: Framework;
}

export function resolveCell(s: {
  topology: Topology;
  teamSize?: number | undefined;
  rounds?: number | undefined;
  comm?: Comm | undefined;
  framework?: Framework | undefined;
}): Cell {
  if (s.topology === 'single') return { topology: 'single', agents: 1, rounds: 1, comm: 'freeform' };
  const d = TOOLHOP_TEAM_DEFAULTS[s.topology];
  const rounds = TEAM_DEFAULTS[s.topology].usesRounds ? (s.rounds ?? d.rounds) : 1;
  return {
    topology: s.topology,
    agents: s.teamSize ?? d.agents,
    rounds,
    comm: s.comm ?? 'freeform',
    ...(s.framework === 'openai-agents' ? { framework: s.framework } : {}),
  };
}

/** Why a cell is outside the reference's grid, or null when the reference runs it. */
export function outsideReferenceGrid(c: Cell): string | null {
  if (c.topology === 'single') return null;
  const r = sizeOfAgents(c.topology, c.agents);
  const problems: string[] = [];
  if (!(REFERENCE_SIZES as readonly number[]).includes(r))
    problems.push(
      `team size ${r}${c.topology === 'centralized' ? ` (manager + ${c.agents})` : ''} (the reference runs ${REFERENCE_SIZES.join(', ')})`,
    );
  else if (c.comm !== 'freeform' && r !== REFERENCE_BASELINE)
    problems.push(`format ${c.comm} at team size ${r} (the reference runs the formats at ${REFERENCE_BASELINE})`);
  const rounds = TOOLHOP_TEAM_DEFAULTS[c.topology].rounds;
  if (c.rounds !== rounds) problems.push(`${c.rounds} rounds (the reference runs ${rounds})`);
  return problems.length ? problems.join('; ') : null;
}

/**
 * Why no runner of the reference runs a cell, or null when one does. Beyond the grid's cells, its independent and
 * decentralized ToolHop runners read their team from the environment — `INDEPENDENT_N_AGENTS`,
 * `DECENTRALIZED_N_AGENTS`, `DECENTRALIZED_N_ROUNDS` (each also as `TOOLHOP_…`), any number, in every format (the
 * communication runners are the same modules with the format preset) — while the centralized and sequential teams
 * are fixed in their runners and exist at other sizes only as the team-size runners (r = 2, 4, 8, 10, freeform).
 */
export function outsideReferenceRunners(c: Cell): string | null {
  // Its Agents SDK runner reads the same two variables, but has no format variants (those are LangGraph modules).
  if (c.framework === 'openai-agents' && c.comm !== 'freeform')
    return `format ${c.comm} on the OpenAI Agents SDK (the reference's Agents SDK runner has no format variants)`;
  if (c.topology === 'independent' || c.topology === 'decentralized') return null;
  return outsideReferenceGrid(c);
}

/** One line: the cell and why no runner of the reference runs it, and how to run it anyway. */
export function gridRefusal(c: Cell, command: string): string | null {
  const why = outsideReferenceRunners(c);
  if (!why) return null;
  return `toolgauge ${command}: ${cellName(c)} is a cell no runner of the reference runs: ${why}; pass --allow-any-cell to run it`;
}

export function cellName(c: Cell): string {
  if (c.topology === 'single') return 'single';
  return `${c.topology} × ${c.agents} agents${TEAM_DEFAULTS[c.topology].usesRounds ? ` × ${c.rounds} rounds` : ''} × ${c.comm}${c.framework ? ` on ${c.framework}` : ''}`;
}

/**
 * The style the reference names a cell's output folder by (`results/toolhop/<style>`): `<topology>_langgraph` for
 * the baseline cells (its topology study), `<topology>_toolhop_r<r>` for another team size (its team-size study),
 * `<topology>_langgraph_communications_<format>` for another format (its communication study). A cell outside the
 * grid gets toolgauge's own name in the same pattern: `<topology>_toolhop_r<r>[_<format>][_rounds<k>]`.
 */
export function styleOf(c: Cell): string {
  if (c.topology === 'single') return 'single_langgraph';
  // The Agents SDK team: the reference's `decentralized_openai_agents`, else the LangGraph name's `_openai_agents`.
  if (c.framework === 'openai-agents') {
    const { framework: _f, ...langgraph } = c;
    const base = styleOf(langgraph);
    return base === `${c.topology}_langgraph` ? `${c.topology}_openai_agents` : `${base}_openai_agents`;
  }
  const r = sizeOfAgents(c.topology, c.agents);
  const defaultRounds = c.rounds === TOOLHOP_TEAM_DEFAULTS[c.topology].rounds;
  if (defaultRounds && r === REFERENCE_BASELINE)
    return c.comm === 'freeform'
      ? `${c.topology}_langgraph`
      : `${c.topology}_langgraph_communications_${REFERENCE_FORMAT[c.comm]}`;
  return `${c.topology}_toolhop_r${r}${c.comm === 'freeform' ? '' : `_${REFERENCE_FORMAT[c.comm]}`}${defaultRounds ? '' : `_rounds${c.rounds}`}`;
}
