import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { headerId } from '../../harness/core/ids.ts';
import { artifactName } from '../../harness/kit/names.ts';
import { parsePolicySpec } from '../../harness/sim/policy-spec.ts';
import { coinWins } from '../../harness/toolhop/sim-policy.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { readJson, readLines, tempDir } from '../helpers/cli.ts';

// The independent team's tie-break, end to end: a ToolHop run with a team of three against the simulator over
// HTTP, each agent with its own coin and (wrong=diverse) its own wrong value, so votes tie. The expected team
// verdict is worked out here from the agents' coins alone, without the vote code: the gold is the only value two
// agents can share, so the team is right when two or more agents are, and when exactly one is, only if that one is
// the first agent (a three-way tie goes to the earliest agent). The run goes through the kit in process (runSuite:
// the same sessions, files and traces as the command, with the variables its --topology, --agents and
// --allow-any-cell set): the votes are the subject, not the process.

const MODEL = 'sim:coin?p=0.5&wrong=diverse&seed=3';
const AGENTS = 3;
const TRIALS = 3;

interface Result {
  id: string;
  trial: number;
  correct: boolean;
  gold_answer: string;
  predicted_answer: string;
}
interface Trace {
  team: { vote: { ballots: Array<{ agent: string; answer: string | null }>; winner: number | null } };
}

let out = '';
let results: Result[] = [];
beforeAll(async () => {
  out = tempDir('team-tie');
  const r = await runSuite(toolhopSuite, {
    TOOLGAUGE_MODEL: MODEL,
    TOOLHOP_LIMIT: '20',
    TOOLGAUGE_TRIALS: String(TRIALS),
    TOOLHOP_TOPOLOGY: 'independent',
    TOOLHOP_TEAM_SIZE: String(AGENTS),
    TOOLHOP_ALLOW_ANY_CELL: '1',
    TOOLHOP_ALLOW_DATASET_EXEC: '1',
    TOOLGAUGE_SANDBOX: 'python',
    TOOLGAUGE_OUT_DIR: out,
  });
  // Wrong answers are a run's outcome, not a harness error.
  expect(r.finalized.harnessErrors, JSON.stringify(r.finalized.summary.errors)).toBe(0);
  results = readLines<Result>(join(out, 'results.jsonl'));
}, 180_000);

describe('an independent team on sim:coin with diverse wrong answers', () => {
  it("every instance: the team is right exactly as the agents' coins and the earliest-agent tie-break say", () => {
    expect(results.length).toBe(11 * TRIALS);
    const spec = parsePolicySpec(MODEL);
    const kinds = { majority: 0, tieWonByFirst: 0, tieLostByFirst: 0, noneRight: 0 };
    for (const r of results) {
      const right = Array.from({ length: AGENTS }, (_, i) =>
        coinWins(spec, { instance: `toolhop:${headerId(r.id)}`, agent: `solver-${i}`, trial: r.trial }),
      );
      const k = right.filter(Boolean).length;
      const expected = k >= 2 || (k === 1 && right[0]!);
      if (k >= 2) kinds.majority++;
      else if (k === 1 && right[0]) kinds.tieWonByFirst++;
      else if (k === 1) kinds.tieLostByFirst++;
      else kinds.noneRight++;
      expect(r.correct, `row ${r.id} trial ${r.trial}: agents right ${JSON.stringify(right)}`).toBe(expected);
    }
    // Both kinds of tie occur: one where the first agent's right answer wins, one where a right answer from a later
    // agent loses to the first agent's wrong one (a rule "any right answer" or "latest agent" would differ here).
    expect(kinds.tieWonByFirst, JSON.stringify(kinds)).toBeGreaterThan(0);
    expect(kinds.tieLostByFirst, JSON.stringify(kinds)).toBeGreaterThan(0);
  });

  it('the traces show the ties: no two agents share a wrong value, and a three-way tie goes to the first ballot', () => {
    let threeWay = 0;
    for (const r of results) {
      const { vote } = readJson<Trace>(join(out, 'traces', artifactName(String(r.id), r.trial))).team;
      expect(vote.ballots.map((b) => b.agent)).toEqual(['solver-0', 'solver-1', 'solver-2']);
      const answers = vote.ballots.map((b) => b.answer!);
      const wrong = answers.filter((a) => a !== r.gold_answer);
      expect(new Set(wrong).size, `row ${r.id} trial ${r.trial}: ${JSON.stringify(answers)}`).toBe(wrong.length);
      if (new Set(answers).size === AGENTS) {
        threeWay++;
        expect(vote.winner).toBe(0);
        expect(r.predicted_answer).toBe(answers[0]);
      }
    }
    expect(threeWay).toBeGreaterThan(0);
  });
});
