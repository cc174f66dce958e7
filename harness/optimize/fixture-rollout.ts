import type { ToolhopRow } from '../toolhop/row.ts';
import type { RolloutResult } from './types.ts';

/**
 * A calibration fixture's rollout as the real runner reports one: the row's question and gold, the answer, who gave
 * it and each role's last message (one agent per role, no tool errors, no vote). Token counts are fixed: the
 * fixtures measure accuracy, not cost.
 */
export function fixtureRollout(
  row: ToolhopRow,
  o: {
    predicted: string;
    correct: boolean;
    toolCalls: number;
    answeredBy: string;
    runs: Array<{ role: string; final: string }>;
  },
): RolloutResult {
  return {
    score: o.correct ? 1 : 0,
    error: null,
    tokens: { prompt: 100, completion: 10, total: 110 },
    feedback: {
      question: row.question,
      gold: row.answer,
      predicted: o.predicted,
      correct: o.correct,
      rule: o.correct ? 'literal' : null,
      error: null,
      toolCalls: o.toolCalls,
      toolErrors: [],
      answeredBy: o.answeredBy,
      runs: o.runs.map((r) => ({ role: r.role, agent: r.role, final: r.final, toolErrors: 0, error: null })),
      vote: null,
      forcedFinal: false,
    },
  };
}
