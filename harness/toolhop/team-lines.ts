import type { ChatMessage } from '../core/chat.ts';
import { JsonFloat } from '../core/json-float.ts';
import { answerKey, lastAssistantContent, previousToolContent } from './answer.ts';
import { scoreAnswer } from './score.ts';
import type { ToolhopTeamTrace } from './team.ts';

/**
 * A vote team's fields of a results line as the reference's runners write them (its `solve_topology` outputs, copied
 * by `run_instance`): `winner` (index of the voter whose answer the team gives), `buckets` (votes per answer key of
 * the voters that did not fail, an empty answer included) and the voters' compact records — `per_agent` for
 * independent replicas, `per_peer` (the last round) with `n_rounds` for decentralized peers. Centralized and
 * sequential teams add nothing here (their own records are in the trace). Pure.
 */
export function teamResultFields(team: ToolhopTeamTrace['team'] | undefined, gold: string): Record<string, unknown> {
  if (!team || (team.topology !== 'independent' && team.topology !== 'decentralized')) return {};
  const voters = team.topology === 'independent' ? team.runs : team.runs.filter((r) => r.round === team.rounds);
  const perVoter = voters.map((r) => memberRecord(r, gold));
  const buckets: Record<string, number> = {};
  for (const v of perVoter) if (!('error' in v)) buckets[v.answer_key] = (buckets[v.answer_key] ?? 0) + 1;
  const winner = team.vote?.winner ?? null;
  return team.topology === 'independent'
    ? { per_agent: perVoter, winner, buckets }
    : { n_rounds: team.rounds, per_peer: perVoter, winner, buckets };
}

type Run = ToolhopTeamTrace['team']['runs'][number];

/** One member as the reference's `compact_agent(solve_agent(…))`: its answer scored on its own conversation. */
export function memberRecord(r: Run, gold: string) {
  const solve_s = new JsonFloat(Math.round(r.cost.wallMs / 100) / 10);
  if (r.error !== null) return { role: r.role, seed: r.seed, solve_s, error: r.error };
  const messages = r.messages as ChatMessage[];
  const final = lastAssistantContent(messages);
  const previous = previousToolContent(messages);
  const score = scoreAnswer(gold, final, previous);
  return {
    role: r.role,
    seed: r.seed,
    solve_s,
    predicted_answer: score.predicted,
    answer_key: answerKey(score.predicted),
    answer_correct: score.correct ? 1 : 0,
    correct: score.correct,
    turns: messages.filter((m) => m.role === 'assistant').length,
    tool_calls: messages.reduce((s, m) => s + (m.tool_calls?.length ?? 0), 0),
    final_content: final,
    previous_tool_content: previous,
  };
}
