import { deriveSeed, hashString, Rng } from '../core/rng.ts';
import type { ToolhopRow } from '../toolhop/row.ts';
import { wrongAnswer } from '../toolhop/sim-policy.ts';
import { fixtureRollout } from './fixture-rollout.ts';
import { currentOf, examplesOf } from './sim-reflect.ts';
import type { ReflectionModel, RolePrompts, RolloutRunner } from './types.ts';

/**
 * The merge calibration fixture (a fixture, never a model result; docs/optimize.md, "The merge fixture"): a task
 * on which one lineage can fix only one of two row groups, so that GEPA's merge is the way to both.
 *
 * - **Two groups, each fixed in its own role, in two steps.** Rows whose answer is a number are the caller's to
 *   fix, every other row the verifier's; the checker fixes nothing. A group is fixed by a broad rule ("Always answer
 *   with a bare integer.") in its home role — its chance rises from LO to MID, and, in whatever role the rule
 *   stands, the other group's chance drops to 0 — and then by a refinement in the same role ("Apply the integer rule
 *   only when the question asks for a number.") that takes its group to HI and the harm away.
 * - **A valley.** From the seed a broad rule pays: the other group loses only its LO. Once one group is fixed, the
 *   other group's broad rule costs the fixed group everything it gained: strict acceptance refuses it, so a lineage
 *   fixes one group and no more. While the first lineage's broad rule is unrefined, the seed stays best on the
 *   other group's rows and on the Pareto front, so a second lineage can start there; the merge of the two lineages
 *   (the caller of one, the verifier of the other) is the only way to both groups.
 * - **Clutter costs.** Every rule in a role that is not its group's home multiplies every row's chance by JUNK: an
 *   acceptance rule that keeps ties lets such rules in.
 * - **The reflection model sees what a real one sees** (`mergeCriticAnswer`): the instruction it rewrites, each
 *   example's gold and predicted answers and verdict, and what the rewritten role ended with. It counts a wrong
 *   example only when the rewritten role's own output is already wrong (the role that broke a row, and every role
 *   after it, shows the wrong value), sorts it by the form of its gold answer (digits or not — never the hidden
 *   answer type), restricts a broad rule of its instruction when the other kind of answer fails there, and otherwise
 *   writes the next rule of the kind that fails most; with probability `misread` the other kind. Each answer is
 *   worded afresh (a prefix such as "Important: "), as a model words a rewrite differently each time, so a rule once
 *   refused on an unlucky minibatch can be proposed again.
 *
 * A row is solved when u < p (one draw per row and trial, except LUCK of rollouts that draw their own): the
 * fixture's solve chance is `mergeSolveChance`.
 */

export const MERGE_GROUPS = ['number', 'text'] as const;
export type MergeGroup = (typeof MERGE_GROUPS)[number];
export const MERGE_ROLES = ['caller', 'checker', 'verifier'] as const;
export const MERGE_HOME: Record<MergeGroup, (typeof MERGE_ROLES)[number]> = { number: 'caller', text: 'verifier' };
export const LO = 0.2;
export const MID = 0.6;
export const HI = 0.9;
export const JUNK = 0.7;
export const LUCK = 0.3;

/** Each group's rules in order: the broad rule, then its refinement. */
export const MERGE_RULES: Record<MergeGroup, readonly [broad: string, refinement: string]> = {
  number: [
    '- Always answer with a bare integer.',
    '- Apply the integer rule only when the question asks for a number.',
  ],
  text: [
    '- Always answer with a word, never with a number.',
    '- Apply the word rule only when the question asks for a name, a code or a date.',
  ],
};

export const MERGE_SEED: RolePrompts = {
  caller: 'Call the tools in order, passing each result on to the next call.',
  checker: 'Check each result against the question before it is passed on.',
  verifier: 'Check the chain of results and state the final value.',
};
/** The hand-written prompt, no search: the broad number rule in every role (most ToolHop answers are numbers). */
export const MERGE_HAND_WRITTEN: RolePrompts = Object.fromEntries(
  Object.entries(MERGE_SEED).map(([role, text]) => [role, `${text}\n${MERGE_RULES.number[0]}`]),
);

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
const has = (prompt: string, line: string) => norm(prompt).includes(norm(line.replace(/^- /, '')));
const other = (g: MergeGroup): MergeGroup => (g === 'number' ? 'text' : 'number');

/** How far an instruction goes with a group: 0 nothing, 1 the broad rule, 2 the broad rule and its refinement. */
export function stagesIn(prompt: string, g: MergeGroup): number {
  if (!has(prompt, MERGE_RULES[g][0])) return 0;
  return has(prompt, MERGE_RULES[g][1]) ? 2 : 1;
}

/** The row's hidden group, from ToolHop's `answer_type` (never shown to the reflection model). */
export function mergeGroup(row: Pick<ToolhopRow, 'answer_type'>): MergeGroup {
  return row.answer_type === 'number' ? 'number' : 'text';
}

/** The chance the fixture solves a row of this group under these role prompts. Pure. */
export function mergeSolveChance(prompts: RolePrompts, g: MergeGroup): number {
  const k = stagesIn(prompts[MERGE_HOME[g]] ?? '', g);
  let p = k === 2 ? HI : k === 1 ? MID : LO;
  for (const [role, text] of Object.entries(prompts)) {
    if (stagesIn(text, other(g)) === 1) p = 0;
    for (const x of MERGE_GROUPS) if (MERGE_HOME[x] !== role && stagesIn(text, x) > 0) p *= JUNK;
  }
  return p;
}

/** Whether the fixture solves this row (the row's draw, or with probability `luck` one of these prompts' own). */
export function mergeWins(
  prompts: RolePrompts,
  row: Pick<ToolhopRow, 'id' | 'answer_type'>,
  seed: number,
  luck = LUCK,
): boolean {
  const key = Object.keys(prompts)
    .sort()
    .map((r) => `${r}=${norm(prompts[r]!)}`)
    .join('\n');
  const own = new Rng(deriveSeed(seed, 'merge-fixture', String(row.id), hashString(key)));
  const u = own.chance(luck) ? own.next() : new Rng(deriveSeed(seed, 'merge-fixture', String(row.id))).next();
  return u < mergeSolveChance(prompts, mergeGroup(row));
}

/**
 * The in-process task runner: a lost row is broken by the first role (caller, checker, verifier) that carries the
 * other group's unrefined broad rule, or else by its group's home role; the roles before it pass the right value
 * on, the roles from it on show the wrong one, as a team trace would.
 */
export function mergeRunner(rows: ReadonlyMap<string, ToolhopRow>, seed: number, luck = LUCK): RolloutRunner {
  return async (c, id) => {
    const row = rows.get(id);
    if (!row) throw new Error(`no row ${id}`);
    const won = mergeWins(c.prompts, row, seed, luck);
    const predicted = won ? row.answer : wrongAnswer(row.answer);
    const g = mergeGroup(row);
    const breaker = won
      ? MERGE_ROLES.length
      : MERGE_ROLES.findIndex((r) => stagesIn(c.prompts[r] ?? '', other(g)) === 1 || r === MERGE_HOME[g]);
    const shown = (i: number) => (i < breaker ? row.answer : predicted);
    return fixtureRollout(row, {
      predicted,
      correct: won,
      toolCalls: Object.keys(row.tools).length,
      answeredBy: 'verifier',
      runs: [
        { role: 'caller', final: `The chain ends with ${shown(0)}.` },
        { role: 'checker', final: `Checked: ${shown(1)}.` },
        { role: 'verifier', final: `<answer>${shown(2)}</answer>` },
      ],
    });
  };
}

/** The kind a reader puts a gold answer in, from its form: digits (a sign allowed) are a number, anything else text. */
export function kindFromForm(gold: string): MergeGroup {
  return /^-?\d+$/.test(gold.trim()) ? 'number' : 'text';
}

/** Whether a role's output, as the reflection prompt quotes it, is exactly the gold value. */
function passedOn(quoted: string, gold: string): boolean {
  const text = quoted.startsWith('"') ? (JSON.parse(quoted) as string) : quoted;
  const value = /(?:ends with |Checked: |<answer>)([\s\S]*?)(?:\.|<\/answer>)?$/.exec(text.trim())?.[1];
  return value !== undefined && value.trim() === gold.trim();
}

/** Per example block of a reflection prompt, in order: the gold answer and what the rewritten role ended with. */
function blocksOf(prompt: string): Array<{ gold: string; roleOutput: string | null }> {
  return prompt
    .split(/^### Example /m)
    .slice(1)
    .map((b) => ({
      gold: /^Gold answer: (.*)$/m.exec(b)?.[1]?.trim() ?? '',
      roleOutput: /^Role "[^"]*" \([^)]*\) ended with: (.*)$/m.exec(b)?.[1] ?? null,
    }));
}

const WORDINGS = ['', 'Important: ', 'Remember: ', 'Note: ', 'Rule: ', 'Always check this: '];

export interface MergeCriticOptions {
  /** Chance of writing about the other kind of answer than the one the examples point to. */
  misread: number;
  seed: number;
}
export const MERGE_CRITIC_DEFAULTS: MergeCriticOptions = { misread: 0.15, seed: 0 };

/** The fixture's reflection model: one rule appended to the instruction it rewrites, or no change. Pure. */
export function mergeCriticAnswer(prompt: string, key: string, o: MergeCriticOptions = MERGE_CRITIC_DEFAULTS): string {
  const rng = new Rng(deriveSeed(o.seed, 'merge-critic', key, hashString(prompt)));
  const current = currentOf(prompt);
  const examples = examplesOf(prompt);
  const blocks = blocksOf(prompt);
  const wrong: Record<MergeGroup, number> = { number: 0, text: 0 };
  examples.forEach((e, i) => {
    const b = blocks[i];
    if (!e.wrong || !b) return;
    // A wrong answer this role passed on right is another role's to fix.
    if (b.roleOutput !== null && passedOn(b.roleOutput, b.gold)) return;
    wrong[kindFromForm(b.gold)]++;
  });
  const misread = rng.chance(o.misread);
  const coin = rng.pick(MERGE_GROUPS);
  const unchanged = `<instruction>\n${current}\n</instruction>`;
  const broad = MERGE_GROUPS.find((x) => stagesIn(current, x) === 1);
  let rule: string;
  if (examples.length === 0) {
    // A blind rewrite: the next rule of a kind picked at random.
    const k = stagesIn(current, coin);
    if (k >= 2) return unchanged;
    rule = MERGE_RULES[coin][k]!;
  } else if (broad && wrong[other(broad)] > 0) {
    // This instruction's broad rule breaks the other kind of answer: restrict it.
    rule = MERGE_RULES[broad][1];
  } else {
    if (wrong.number + wrong.text === 0) return unchanged;
    let g: MergeGroup = wrong.number > wrong.text ? 'number' : wrong.text > wrong.number ? 'text' : coin;
    if (misread) g = other(g);
    const k = stagesIn(current, g);
    if (k >= 2) return unchanged;
    rule = MERGE_RULES[g][k]!;
  }
  const worded = rule.replace(/^- /, `- ${rng.pick(WORDINGS)}`);
  return `Looking at the examples, one rule would have helped.\n<instruction>\n${[current, worded].filter(Boolean).join('\n')}\n</instruction>`;
}

export function mergeCritic(o: Partial<MergeCriticOptions> = {}): ReflectionModel {
  const opts = { ...MERGE_CRITIC_DEFAULTS, ...o };
  return async (prompt, key) => ({
    answer: mergeCriticAnswer(prompt, key, opts),
    tokens: { prompt: 50, completion: 20, total: 70 },
  });
}
