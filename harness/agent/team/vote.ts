import { pyLower, pyStrip, removeSuffix } from '../../core/pyliteral/pystr.ts';

/**
 * The key under which answers are counted: stripped (Python's whitespace set), one trailing ".0" dropped, commas
 * removed, lowercased — so "1,000.0", " 1000 " and "1000" are one answer.
 */
export function voteKey(answer: string): string {
  return pyLower(removeSuffix(pyStrip(answer), '.0').replaceAll(',', ''));
}

export interface Ballot {
  agent: string;
  /** The agent's extracted answer; null when it produced none. */
  answer: string | null;
  /** The agent's run failed (endpoint error): it does not vote. */
  errored: boolean;
}

export interface VoteRecord {
  ballots: Array<{ agent: string; answer: string | null; key: string | null; counted: boolean }>;
  /** Votes per key, over counted ballots. */
  counts: Record<string, number>;
  /** Index (into ballots) of the first agent that gave the winning answer; null when nobody voted. */
  winner: number | null;
  winnerKey: string | null;
}

/**
 * The team's answer: the most common key among agents that did not error and gave an answer; on a tie, the key
 * whose first voter comes earliest in agent order. The winner is that first voter (its message is the team's).
 */
export function majorityVote(ballots: readonly Ballot[]): VoteRecord {
  const counts = new Map<string, number>();
  const firstSeen = new Map<string, number>();
  const out: VoteRecord['ballots'] = ballots.map((b, i) => {
    const counted = !b.errored && b.answer !== null;
    const key = b.answer === null ? null : voteKey(b.answer);
    if (counted && key !== null) {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (!firstSeen.has(key)) firstSeen.set(key, i);
    }
    return { agent: b.agent, answer: b.answer, key, counted };
  });
  let winnerKey: string | null = null;
  for (const [key, n] of counts) {
    if (winnerKey === null) {
      winnerKey = key;
      continue;
    }
    const best = counts.get(winnerKey)!;
    if (n > best || (n === best && firstSeen.get(key)! < firstSeen.get(winnerKey)!)) winnerKey = key;
  }
  return {
    ballots: out,
    counts: Object.fromEntries(counts),
    winner: winnerKey === null ? null : firstSeen.get(winnerKey)!,
    winnerKey,
  };
}
