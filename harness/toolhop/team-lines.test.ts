import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat.ts';
import { stringifyJson } from '../core/json-float.ts';
import type { ToolhopTeamTrace } from './team.ts';
import { teamResultFields } from './team-lines.ts';

// A vote team's results fields, checked against what the reference's solve_agent / vote_buckets / choose_winner
// give for the same conversations, written out by hand.

type Run = ToolhopTeamTrace['team']['runs'][number];
const run = (seed: number, round: number, messages: Run['messages'], error: string | null = null): Run =>
  ({ agent: `x-${seed}`, role: 'solver', seed, round, messages, error, cost: { wallMs: 1000 } }) as unknown as Run;
const answering = (answer: string): ChatMessage[] => [
  { role: 'system', content: 's' },
  { role: 'user', content: 'q' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
  },
  { role: 'tool', content: '"Paris"', tool_call_id: 'c' },
  { role: 'assistant', content: `<answer>${answer}</answer>` },
];
const team = (topology: string, runs: Run[], winner: number | null, rounds = 1) =>
  ({ topology, rounds, runs, vote: { winner } }) as unknown as ToolhopTeamTrace['team'];

describe('teamResultFields: the reference winner, buckets and voters of a vote team', () => {
  it('independent: per_agent scored one by one, buckets over the voters that did not fail', () => {
    const f = teamResultFields(
      team('independent', [run(0, 1, answering('Paris')), run(1, 1, answering('Lyon')), run(2, 1, [], 'Timeout')], 0),
      'Paris',
    );
    expect(f.winner).toBe(0);
    expect(f.buckets).toEqual({ paris: 1, lyon: 1 });
    expect(f.per_agent).toEqual([
      {
        role: 'solver',
        seed: 0,
        solve_s: expect.anything(),
        predicted_answer: 'Paris',
        answer_key: 'paris',
        answer_correct: 1,
        correct: true,
        turns: 2,
        tool_calls: 1,
        final_content: '<answer>Paris</answer>',
        previous_tool_content: '"Paris"',
      },
      expect.objectContaining({ seed: 1, predicted_answer: 'Lyon', answer_correct: 1, correct: true }),
      { role: 'solver', seed: 2, solve_s: expect.anything(), error: 'Timeout' },
    ]);
    // The reference's third rule: the gold is in the last tool result, so the wrong answer is scored correct too.
    expect(stringifyJson(f)).toContain('"solve_s":1.0');
  });

  it('decentralized: the last round votes, as per_peer with n_rounds', () => {
    const runs = [
      run(0, 1, answering('a')),
      run(1, 1, answering('b')),
      run(2, 2, answering('b')),
      run(3, 2, answering('b')),
    ];
    const f = teamResultFields(team('decentralized', runs, 1, 2), 'zzz');
    expect(f).toMatchObject({ n_rounds: 2, winner: 1, buckets: { b: 2 } });
    expect((f.per_peer as Array<{ seed: number }>).map((p) => p.seed)).toEqual([2, 3]);
    expect(f.per_agent).toBeUndefined();
  });

  it('no team, or a team without a vote: nothing added', () => {
    expect(teamResultFields(undefined, 'x')).toEqual({});
    expect(teamResultFields(team('sequential', [run(0, 1, answering('a'))], null), 'x')).toEqual({});
  });
});
