/**
 * The optimizer's vocabulary. A candidate is one complete set of role prompts for a topology; a rollout is one run
 * of the real suite runner on one row with one candidate (a whole team for team topologies), and the budget counts
 * rollouts. Nothing here knows ToolHop: the suite bridge (toolhop-runner.ts) turns a suite run into a `Rollout`.
 */

/** role → instruction text (the role prompt file's content). */
export type RolePrompts = Record<string, string>;

export type CandidateOrigin = 'seed' | 'reflection' | 'merge' | 'proposal';

export interface Candidate {
  /** `c0` (the seed), `c1`, … in creation order: the same ids on a resumed run. */
  id: string;
  prompts: RolePrompts;
  /** sha256 of the prompts (stable JSON): what a logged rollout is checked against on resume. */
  sha: string;
  /** [] for the seed, [parent] for a mutation or a MIPRO combination, [a, b] for a merge. */
  parents: string[];
  /** The role a mutation rewrote (null for the seed, merges and combinations). */
  role: string | null;
  origin: CandidateOrigin;
  /** The optimizer step that made it. */
  step: number;
  /** MIPRO: which proposal each role uses (0 = the seed's instruction). */
  choice?: Record<string, number>;
}

export interface Tokens {
  prompt: number;
  completion: number;
  total: number;
}

/** What the suite says about one rollout, for reflection: the textual feedback GEPA learns from. */
export interface RolloutFeedback {
  question: string;
  gold: string;
  predicted: string;
  correct: boolean;
  /** The scoring rule that credited the answer (literal, substring, tool_result), or null. */
  rule: string | null;
  /** A harness error (endpoint down, broken row); a rollout with one never informs a decision. */
  error: string | null;
  toolCalls: number;
  /** Tool results that were errors: "name: message", clipped. */
  toolErrors: string[];
  /** The role whose message was scored (the team's answer), when known. */
  answeredBy: string | null;
  /** Each run of the rollout: its role, agent, final message (clipped), tool errors and error. */
  runs: Array<{ role: string; agent: string; final: string; toolErrors: number; error: string | null }>;
  /** Vote counts of independent/decentralized teams. */
  vote: Record<string, number> | null;
  forcedFinal: boolean;
}

export interface RolloutResult {
  /** 1 when correct, else 0. */
  score: number;
  error: string | null;
  tokens: Tokens;
  feedback: RolloutFeedback;
}

export interface Rollout extends RolloutResult {
  candidate: string;
  row: string;
}

/** Runs one candidate on one row with the real runner (or a fake in tests). */
export type RolloutRunner = (candidate: Candidate, row: string) => Promise<RolloutResult>;

export interface ReflectionAnswer {
  answer: string;
  tokens: Tokens;
}

/** Asks the reflection (or proposal) model; `key` names the call in the log. */
export type ReflectionModel = (prompt: string, key: string) => Promise<ReflectionAnswer>;

/** One point of the progress curve: after `spent` rollouts, the best validation mean so far. */
export interface ProgressPoint {
  spent: number;
  candidate: string;
  val: number;
  best: number;
  bestCandidate: string;
}

export const ZERO_TOKENS: Tokens = { prompt: 0, completion: 0, total: 0 };

export function addTokens(a: Tokens, b: Tokens): Tokens {
  return { prompt: a.prompt + b.prompt, completion: a.completion + b.completion, total: a.total + b.total };
}

/** What every prompt search is given: the topology's roles and seed prompts, the splits and the seed. */
export interface SearchProblem {
  topology: string;
  /** The mutable roles, in the order they are mutated. */
  roles: readonly string[];
  /** The role whose message is scored (for the reflection prompt), if one is. */
  answerer: string | null;
  seedPrompts: RolePrompts;
  train: readonly string[];
  val: readonly string[];
  seed: number;
  /** Progress lines (stderr in the CLI). */
  say?: (line: string) => void;
}
