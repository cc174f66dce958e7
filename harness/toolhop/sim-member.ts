import { TEAM_TOPOLOGIES, type TeamTopology } from '../agent/team/index.ts';
import type { ChatMessage } from '../core/chat.ts';
import { FINALIZER_SYSTEM_PROMPT, REPLICA_ROLES, SINGLE_AGENT } from './prompts.ts';
import { textOf } from './sim-identify.ts';

/**
 * Which team member sent a request that carries no `x-toolgauge-agent` header, read from the conversation alone, so
 * another runner's team (the reference's) draws each member's coin as toolgauge's team does for the member in the
 * same place. Pure. The answer is toolgauge's agent id for that member:
 *
 *   - independent: `solver-<i>`, replica i sending seed i;
 *   - decentralized: `debater-<i>`, the same id in every round (peer i sends seed (round − 1) × peers + i);
 *   - centralized and sequential: the role's name;
 *   - anything else (a single agent, a request of no known team): the single agent's id.
 *
 * The topology is read from the system prompt: a known role prompt contained in it, or the generic prompt's
 * `Implementation style: <style>` line (the reference's runners write their style there when no role prompt file
 * exists: `independent_langgraph`, `decentralized_toolhop_r4`, …), or else the team the prompt describes in its own
 * words (`teamOfWording`: a role prompt file of another runner, which toolgauge does not bundle); a `Debate round <k>` line in the user
 * message marks a decentralized peer in round k ≥ 2 (the reference's and toolgauge's debate context both open so).
 * The final-answer call carries no role prompt: only its quoted task can mark a debater of a later round.
 */

/** A role prompt a system prompt may contain, and whose member it marks. */
export interface KnownRolePrompt {
  topology: TeamTopology | 'single';
  role: string;
  text: string;
}

export interface MemberRequest {
  messages: ChatMessage[];
  /** The request's `seed` (the reference sends one on every request; absent: 0). */
  seed?: unknown;
}

const STYLE = /Implementation style: ([a-z]+)/;
const DEBATE = /(?:^|\n)Debate round (\d+)\b/;

export function foreignMemberOf(body: MemberRequest, known: readonly KnownRolePrompt[] = []): string {
  const roster = REPLICA_ROLES;
  const seed = seedOf(body.seed);
  const system = textOf(body.messages.find((m) => m.role === 'system')?.content);
  const user = textOf(body.messages.find((m) => m.role === 'user')?.content);
  const finalizer = system === FINALIZER_SYSTEM_PROMPT;
  const debate = DEBATE.exec(user);
  const round = debate ? Number(debate[1]) : 1;

  const member = finalizer ? undefined : memberOfPrompt(system, known);
  const topology = member?.topology ?? (debate && round >= 2 ? 'decentralized' : undefined);
  switch (topology) {
    case 'independent':
      return `${roster.independent}-${seed}`;
    case 'decentralized':
      return `${roster.decentralized}-${debatePeer(seed, round, peersShown(user, roster.decentralized))}`;
    case 'centralized':
    case 'sequential':
      return member?.role ?? SINGLE_AGENT;
    default:
      return SINGLE_AGENT;
  }
}

/** The topology (and role, when a known prompt names it) the system prompt belongs to. */
function memberOfPrompt(
  system: string,
  known: readonly KnownRolePrompt[],
): { topology: TeamTopology | 'single'; role?: string } | undefined {
  const style = STYLE.exec(system)?.[1];
  const byStyle = [...TEAM_TOPOLOGIES, 'single' as const].find((t) => t === style);
  // The longest known prompt the system prompt contains: one role's prompt may be the start of another's.
  const found = known.filter((k) => k.text && system.includes(k.text)).sort((a, b) => b.text.length - a.text.length)[0];
  if (found) return { topology: found.topology, role: found.role };
  if (byStyle) return { topology: byStyle };
  const worded = teamOfWording(system);
  return worded ? { topology: worded } : undefined;
}

/**
 * The vote team a role prompt describes, read from its words when the prompt is none of toolgauge's: peers who
 * debate are a decentralized team; solvers whose answers are pooled by consensus or majority, or who work in
 * parallel, are independent replicas. Anything else (a single agent's prompt, a pipeline stage's or a star's,
 * which may well say "do not plan parallel execution") names no vote team. The reference's own prompt files
 * (configs/prompts/<topology>/toolhop/) describe their teams so: "a Debater agent … peer agents debating over R
 * rounds", "a Solver Agent operating within a parallel multi-agent topology … aggregated via consensus".
 */
export function teamOfWording(system: string): 'independent' | 'decentralized' | undefined {
  if (/\bdebat(?:e|es|er|ers|ing)\b/i.test(system)) return 'decentralized';
  if (/\b(?:consensus|majority vote)\b|\bparallel multi-agent\b|\bin parallel\b/i.test(system)) return 'independent';
  return undefined;
}

/**
 * Peer i of n in round k sends seed (k − 1) × n + i. n is one more than the peers whose reports the context shows
 * (a peer whose run failed shows none, and a long context keeps only its newest reports, so the count is a lower
 * bound): the smallest n from there that puts the seed inside round k's range.
 */
export function debatePeer(seed: number, round: number, shown: number): number {
  if (round <= 1) return seed;
  for (let n = Math.max(1, shown + 1); (round - 1) * n <= seed; n++)
    if (seed < round * n) return seed - (round - 1) * n;
  return seed % Math.max(1, shown + 1);
}

/** The reports of other peers in a debate context: each opens with a line holding only its sender's label. */
function peersShown(user: string, role: string): number {
  const at = user.search(DEBATE);
  if (at < 0) return 0;
  const label = new RegExp(`^(?:${escapeRegExp(role)}(?:-\\d+)?|agent_\\d+):$`, 'gm');
  return user.slice(at).match(label)?.length ?? 0;
}

function seedOf(seed: unknown): number {
  return typeof seed === 'number' && Number.isInteger(seed) && seed >= 0 ? seed : 0;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
