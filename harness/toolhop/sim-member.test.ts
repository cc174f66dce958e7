import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat.ts';
import { debatePeer, foreignMemberOf, teamOfWording } from './sim-member.ts';
import { bundledRolePrompts } from './sim-role-prompts.ts';

// Conversations shaped as another runner's team sends them (no toolgauge header): a system prompt that is the
// output contract around a generic prompt naming the runner's style, the task with the other agents' context, and
// the seed of the member's place in the team. The oracle is the team's own bookkeeping written out here: replica i
// sends seed i; peer i of n in round k sends seed (k − 1) × n + i and is shown the other n − 1 peers' answers.

const CONTRACT =
  'PROTECTED FINAL OUTPUT CONTRACT:\nEnd with exactly one short final answer wrapped as <answer>...</answer>.\nGuard.';
const generic = (style: string) =>
  `${CONTRACT}\n\nYou are solving a multi-hop benchmark with tools.\n\nImplementation style: ${style}.\n\nFinal reminder.`;
const TASK = 'Answer the question using the available tools.\n\nQuestion: Who wrote the book?';

function debateContext(round: number, own: string, others: string[]): string {
  return (
    `${TASK}\n\nCONTEXT FROM OTHER AGENTS OR PRIOR STAGES:\nDebate round ${round}. Your previous answer:\n${own}\n\n` +
    `Other peers' previous-round answers:\n${others.map((o) => `debater:\n${o}`).join('\n\n')}\n\n` +
    'Revise only if peer evidence is stronger.'
  );
}

const request = (system: string, user: string, seed?: number, more: ChatMessage[] = []) => ({
  messages: [{ role: 'system', content: system }, { role: 'user', content: user }, ...more] as ChatMessage[],
  ...(seed === undefined ? {} : { seed }),
});

describe('foreignMemberOf: a team member told apart by its conversation', () => {
  it('independent replicas: replica i (seed i) is solver-i, on every turn of its tool loop', () => {
    for (const style of ['independent_langgraph', 'independent_toolhop_r8', 'independent_langgraph_communications_x'])
      for (const seed of [0, 1, 3, 9]) {
        const turns = [
          request(generic(style), TASK, seed),
          request(generic(style), TASK, seed, [
            { role: 'assistant', content: null, tool_calls: [] },
            { role: 'tool', content: '"x"', tool_call_id: 'c' },
          ]),
        ];
        for (const t of turns) expect(foreignMemberOf(t)).toBe(`solver-${seed}`);
      }
  });

  it('a single agent (seed 0, its own style) and a request of no known team stay the single agent', () => {
    expect(foreignMemberOf(request(generic('single_langgraph'), TASK, 0))).toBe('solver');
    expect(foreignMemberOf(request('You are a helpful assistant.', TASK, 5))).toBe('solver');
    expect(foreignMemberOf({ messages: [{ role: 'user', content: TASK }] })).toBe('solver');
  });

  it('decentralized peers keep their id across rounds, for every team size and round', () => {
    for (const n of [2, 4, 8, 10])
      for (const rounds of [1, 2, 3])
        for (let k = 1; k <= rounds; k++)
          for (let i = 0; i < n; i++) {
            const seed = (k - 1) * n + i;
            const others = Array.from({ length: n - 1 }, (_, j) => `<answer>v${j}</answer>`);
            const user = k === 1 ? TASK : debateContext(k, '<answer>mine</answer>', others);
            expect(foreignMemberOf(request(generic('decentralized_langgraph'), user, seed)), `n=${n} k=${k}`).toBe(
              `debater-${i}`,
            );
          }
  });

  it("a later round's final-answer call (no role prompt) is told by the debate in its quoted task", () => {
    const user = `Original task:\n${debateContext(2, 'x', ['<answer>a</answer>', '<answer>b</answer>', 'c'])}\n\nAvailable observations and attempts:\n\nReturn only the best final answer.`;
    const finalizer = {
      messages: [
        {
          role: 'system',
          content:
            'You are a strict answer extractor. Output exactly one XML tag of the form <answer>VALUE</answer> and nothing else. Do not explain or include uncertainty.',
        },
        { role: 'user', content: user },
      ] as ChatMessage[],
      seed: 6,
    };
    expect(foreignMemberOf(finalizer)).toBe('debater-2');
  });

  it('a peer shown fewer reports (one failed, or cut by the context budget) gets its place from the seed when only one fits', () => {
    // 4 peers, round 2, peer 3 (seed 7) shown one of the other three: only n = 4 puts seed 7 in round 2.
    expect(foreignMemberOf(request(generic('decentralized_langgraph'), debateContext(2, 'x', ['a']), 7))).toBe(
      'debater-3',
    );
    // Seed 5 with one report shown fits 3 peers (peer 2) and 4 peers (peer 1): the fewest peers win.
    expect(debatePeer(5, 2, 1)).toBe(2);
    for (const [seed, round, shown, peer] of [
      [4, 2, 3, 0],
      [7, 2, 3, 3],
      [9, 3, 3, 1],
      [6, 2, 1, 2],
    ] as const)
      expect(debatePeer(seed, round, shown)).toBe(peer);
  });

  it('a known role prompt names the member: a centralized worker, a sequential stage, a replica', () => {
    const known = bundledRolePrompts();
    const of = (topology: string, role: string) => known.find((k) => k.topology === topology && k.role === role)!;
    expect(known.length).toBeGreaterThan(10);
    const wrap = (text: string) => `${CONTRACT}\n\n${text}\n\nREPORT FORMAT: freeform.`;
    expect(foreignMemberOf(request(wrap(of('centralized', 'caller_worker').text), TASK, 1), known)).toBe(
      'caller_worker',
    );
    expect(foreignMemberOf(request(wrap(of('sequential', 'verifier').text), TASK, 9), known)).toBe('verifier');
    expect(foreignMemberOf(request(wrap(of('independent', 'solver').text), TASK, 2), known)).toBe('solver-2');
    expect(foreignMemberOf(request(wrap(of('decentralized', 'debater').text), TASK, 1), known)).toBe('debater-1');
  });

  it('a seed that is not a non-negative integer counts as 0', () => {
    for (const seed of [-1, 1.5, '3', null]) {
      const body = { ...request(generic('independent_langgraph'), TASK), seed };
      expect(foreignMemberOf(body)).toBe('solver-0');
    }
  });

  // Another runner's own role prompt files (none of toolgauge's, no style line): written here in their manner, a
  // role that describes its team in words. The reference's runners load such files for their replicas and peers.
  const OWN_SOLVER =
    'You are a Solver agent working inside a parallel multi-agent topology.\n- Your answer is pooled by consensus with the other agents.';
  const OWN_DEBATER =
    'You are a Debater agent.\n- There are 4 peer agents debating over R rounds.\n- Round >0: read the peers answers.';

  it("a replica or peer of another runner's role prompt file is told apart by the team its prompt describes", () => {
    const wrap = (text: string) => `${text}\n\n${CONTRACT}`;
    for (const seed of [0, 1, 3]) {
      expect(foreignMemberOf(request(wrap(OWN_SOLVER), TASK, seed))).toBe(`solver-${seed}`);
      // Round 1 of a debate: no debate context yet, only the prompt says it is a peer (the same seeds as replicas).
      expect(foreignMemberOf(request(wrap(OWN_DEBATER), TASK, seed))).toBe(`debater-${seed}`);
    }
    expect(
      foreignMemberOf(
        request(wrap(OWN_DEBATER), debateContext(2, 'x', ['<answer>a</answer>', 'b', 'c']), 6),
        bundledRolePrompts(),
      ),
    ).toBe('debater-2');
  });

  it('prompts that describe no vote team stay the single agent, even where they mention parallel work', () => {
    for (const text of [
      'You are a solver agent designed to answer multi-hop questions using dynamic function tools.',
      'You are a Planner Agent within a linear multi-agent pipeline. Do not plan parallel execution.',
      'You are the Manager agent in a Star Topology multi-agent system.',
    ]) {
      expect(teamOfWording(text)).toBeUndefined();
      expect(foreignMemberOf(request(`${text}\n\n${CONTRACT}`, TASK, 2))).toBe('solver');
    }
    expect(teamOfWording('Solvers work in parallel; a majority vote picks the answer.')).toBe('independent');
    expect(teamOfWording('Peers Debate the answer.')).toBe('decentralized');
  });
});
