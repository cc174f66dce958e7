import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { startOracle } from '../../core/pyliteral/python-oracle.ts';
import { messageText } from '../../core/pyliteral/testkit.ts';
import { prefetchedOracle } from '../../core/testkit.ts';
import { majorityVote, voteKey, type Ballot } from './vote.ts';

const ballots = (...answers: Array<string | null | { err: string }>): Ballot[] =>
  answers.map((a, i) =>
    typeof a === 'object' && a !== null
      ? { agent: `a${i}`, answer: a.err, errored: true }
      : { agent: `a${i}`, answer: a, errored: false },
  );

describe('majorityVote', () => {
  it('the most common answer wins, and its first voter is the winner', () => {
    const v = majorityVote(ballots('x', 'y', 'z', 'y', 'y', 'x'));
    expect(v.winnerKey).toBe('y');
    expect(v.winner).toBe(1);
    expect(v.counts).toEqual({ x: 2, y: 3, z: 1 });
  });

  it('a tie goes to the answer given earliest', () => {
    expect(majorityVote(ballots('x', 'y', 'y', 'x')).winnerKey).toBe('x');
    expect(majorityVote(ballots('y', 'x', 'x', 'y')).winnerKey).toBe('y');
    expect(majorityVote(ballots('a', 'b', 'c')).winner).toBe(0);
    // Earliest first voter, not earliest in some other order (alphabetical, insertion into a map of counts…).
    expect(majorityVote(ballots('z', 'a', 'a', 'z')).winnerKey).toBe('z');
  });

  it('errored agents do not vote, whatever they answered', () => {
    const v = majorityVote(ballots({ err: 'x' }, { err: 'x' }, { err: 'x' }, 'y'));
    expect(v.winnerKey).toBe('y');
    expect(v.winner).toBe(3);
    expect(v.counts).toEqual({ y: 1 });
    expect(v.ballots.map((b) => b.counted)).toEqual([false, false, false, true]);
    // An errored agent cannot break a tie either.
    expect(majorityVote(ballots({ err: 'y' }, 'x', 'y')).winnerKey).toBe('x');
  });

  it('agents without an answer do not vote; nobody voting means no winner', () => {
    expect(majorityVote(ballots(null, null, 'q')).winner).toBe(2);
    const none = majorityVote(ballots({ err: 'x' }, null));
    expect(none.winner).toBeNull();
    expect(none.winnerKey).toBeNull();
    expect(majorityVote([]).winner).toBeNull();
  });

  it('answers are counted under their normalised key', () => {
    const v = majorityVote(ballots('1000', ' 1,000.0 ', 'Paris', 'PARIS', 'paris.0', '1000'));
    expect(v.counts).toEqual({ '1000': 3, paris: 3 });
    expect(v.winnerKey).toBe('1000');
    expect(v.winner).toBe(0);
  });

  it('agrees with a brute-force count on random ballots', () => {
    const ballot = fc.record({
      agent: fc.constant(''),
      answer: fc.option(fc.constantFrom('a', 'A', 'b', ' b ', 'c,', '1', '1.0', '1,0', ''), { nil: null }),
      errored: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(ballot, { maxLength: 9 }), (bs) => {
        const v = majorityVote(bs);
        const voters = bs
          .map((b, i) => ({ i, k: b.errored || b.answer === null ? null : voteKey(b.answer) }))
          .filter((x) => x.k !== null);
        if (!voters.length) {
          expect(v.winner).toBeNull();
          return;
        }
        // Every voter's key scored as (count, -first index); the best is the winner.
        const score = (k: string) =>
          [voters.filter((x) => x.k === k).length, -voters.find((x) => x.k === k)!.i] as const;
        const best = voters.map((x) => x.k!).sort((p, q) => score(q)[0] - score(p)[0] || score(q)[1] - score(p)[1])[0]!;
        expect(v.winnerKey).toBe(best);
        expect(v.winner).toBe(voters.find((x) => x.k === best)!.i);
      }),
      { numRuns: 500 },
    );
  });
});

describe('voteKey: strip, drop one trailing ".0", remove commas, lowercase', () => {
  it.each([
    [' 1,000.0 ', '1000'],
    ['5.0.0', '5.0'],
    ['2.00', '2.00'],
    ['1.0', '1'],
    ['Paris\n', 'paris'],
    ['\x85Paris\x1c', 'paris'], // Python's str.strip() whitespace, not only ASCII
    ['ΟΔΥΣΣΕΥΣ', 'οδυσσευς'], // final sigma, as Python lowercases
    ['a,b,,c', 'abc'],
    ['', ''],
  ])('%j -> %j', (a, expected) => {
    expect(voteKey(a)).toBe(expected);
  });
});

const { oracle, skipReason } = await startOracle('agent/team/vote');
afterAll(async () => oracle?.close());
const units = (s: string) => Array.from({ length: s.length }, (_, k) => s.charCodeAt(k));

describe.skipIf(skipReason !== undefined)(
  `voteKey agrees with Python's (a or "").strip().removesuffix(".0").replace(",", "").lower()${skipReason ? ` — SKIPPED: ${skipReason}` : ''}`,
  () => {
    it('on generated answers', async () => {
      const { seed, ask } = await prefetchedOracle(oracle!, messageText, 1500, (text) => ({ op: 'key', text }));
      await fc.assert(
        fc.asyncProperty(messageText, async (text) => {
          expect(units(voteKey(text)), JSON.stringify(text)).toEqual(await ask<number[]>({ op: 'key', text }));
        }),
        { numRuns: 1500, seed },
      );
    });
  },
);
