import { deriveSeed, hashString, Rng } from '../core/rng.ts';
import type { ToolhopRow } from '../toolhop/row.ts';
import { wrongAnswer } from '../toolhop/sim-policy.ts';
import { fixtureRollout } from './fixture-rollout.ts';
import { currentOf, examplesOf } from './sim-reflect.ts';
import type { ReflectionModel, RolePrompts, RolloutRunner } from './types.ts';

/**
 * The trade-off calibration fixture for prompt optimizers (a fixture, never a model result). Unlike `sim:trait`,
 * where one phrase per trait can only help, here an optimizer's distinguishing parts are needed and show:
 *
 * - **Two roles, each with its own rows.** A rule about an answer type acts only in that type's home role
 *   (`HOME`: numbers and dates are the caller's, the other types the verifier's); written into the other role it
 *   does nothing. Lineages that improved different roles are each best on different rows, so the Pareto front holds
 *   several candidates, and a merge (one role from each) beats both.
 * - **Trade-offs.** Each type has a conditional rule ("When the answer is a number: …", helps that type only) and
 *   an overgeneral one ("Always answer with a bare integer.", helps that type and halves every other type's chance).
 *   An acceptance rule that keeps children which only tie, or lose, on the minibatch lets no-op and harmful rules in
 *   and pays a full validation for each.
 * - **A reflection model that sees what a real one sees** (`criticAnswer`): it reads only the reflection prompt —
 *   the current instruction, each example's question, gold and predicted answers and verdict — and guesses each
 *   wrong example's type from the *form* of its gold answer (digits, a date, one letter…), never from the hidden
 *   answer type; binary strings such as "1101111" are typed "string" in ToolHop and look like numbers, so it
 *   misreads them as a real model would. It does not know the home roles. With probability `overgeneral` it writes
 *   the overgeneral rule, with probability `misread` a rule about a random type; both seeded by the call's key.
 *
 * A row of hidden type t is solved when u < p, one uniform u per row (and trial): p = HI if t's home role carries
 * a rule about t, else LO, times HARM for each overgeneral rule about another type in that type's home role. One
 * draw per row makes every comparison between prompts paired.
 */

export const TYPES = ['number', 'date', 'datetime', 'string', 'letter'] as const;
export type AnswerType = (typeof TYPES)[number];
export const ROLES = ['caller', 'checker', 'verifier'] as const;
export const HOME: Record<AnswerType, (typeof ROLES)[number]> = {
  number: 'caller',
  date: 'checker',
  datetime: 'checker',
  string: 'verifier',
  letter: 'verifier',
};
export const LO = 0.2;
export const HI = 0.9;
export const HARM = 0.5;

const CONDITIONAL: Record<AnswerType, string> = {
  number: '- When the answer is a number: give the integer exactly as the last tool returned it, digits only.',
  date: '- When the answer is a date: give it as YYYY-MM-DD, exactly as the last tool returned it.',
  datetime: '- When the answer is a date with a time: give it as YYYY-MM-DD HH:MM, keeping the time.',
  string: '- When the answer is a word or a code: copy it character for character, keeping case and punctuation.',
  letter: '- When the answer is a single letter: give just that letter.',
};
const OVERGENERAL: Record<AnswerType, string> = {
  number: '- Always answer with a bare integer.',
  date: '- Always answer with a calendar date (YYYY-MM-DD).',
  datetime: '- Always answer with a date and a time (YYYY-MM-DD HH:MM).',
  string: '- Always answer with a word, never a number.',
  letter: '- Always answer with a single letter.',
};
export const SEED_PROMPTS: RolePrompts = {
  caller: 'Call the tools in order, passing each result on to the next call.',
  checker: 'Check each result against the question before it is passed on.',
  verifier: 'Check the chain of results and state the final value.',
};
/**
 * The hand-written prompt, no search: what a prompt writer who knows that most ToolHop answers are numbers, but has
 * not seen which role acts on what, would write — the number rule in both roles.
 */
export const HAND_WRITTEN: RolePrompts = {
  caller: `${SEED_PROMPTS.caller}\n${OVERGENERAL.number}`,
  checker: `${SEED_PROMPTS.checker}\n${OVERGENERAL.number}`,
  verifier: `${SEED_PROMPTS.verifier}\n${OVERGENERAL.number}`,
};

// Normalized once per text: every rollout of a search reads the same few prompts and rule lines again and again.
const normalized = new Map<string, string>();
function norm(s: string): string {
  let n = normalized.get(s);
  if (n === undefined) {
    n = s.replace(/\s+/g, ' ').trim().toLowerCase();
    if (normalized.size >= 4096) normalized.clear();
    normalized.set(s, n);
  }
  return n;
}
const has = (prompt: string, line: string) => norm(prompt).includes(norm(line.replace(/^- /, '')));

/** The chance the fixture solves a row of this hidden type under these role prompts. Pure. */
export function solveChance(prompts: RolePrompts, type: AnswerType): number {
  const home = prompts[HOME[type]] ?? '';
  let p = has(home, CONDITIONAL[type]) || has(home, OVERGENERAL[type]) ? HI : LO;
  for (const other of TYPES) if (other !== type && has(prompts[HOME[other]] ?? '', OVERGENERAL[other])) p *= HARM;
  return p;
}

/** The row's hidden type (ToolHop's `answer_type`; an unknown one counts as a string). */
export function hiddenType(row: Pick<ToolhopRow, 'answer_type'>): AnswerType {
  return (TYPES as readonly string[]).includes(row.answer_type) ? (row.answer_type as AnswerType) : 'string';
}

/** How often a rollout's draw is its own rather than the row's (see tradeoffWins). */
export const LUCK = 0.3;

/**
 * Whether the fixture solves this row. The draw u is the row's (the same for every prompt, so a no-op rule ties its
 * parent exactly and a rule's effect is paired) except, with probability `luck`, one of its own for these prompts:
 * a model's luck differs from one prompt to the next, so no candidate dominates another by construction and the
 * Pareto front holds several.
 */
export function tradeoffWins(
  prompts: RolePrompts,
  row: Pick<ToolhopRow, 'id' | 'answer_type'>,
  seed: number,
  trial = 0,
  luck = LUCK,
): boolean {
  const key = Object.keys(prompts)
    .sort()
    .map((r) => `${r}=${norm(prompts[r]!)}`)
    .join('\n');
  const own = new Rng(deriveSeed(seed, 'tradeoff', String(row.id), trial, hashString(key)));
  const u = own.chance(luck) ? own.next() : new Rng(deriveSeed(seed, 'tradeoff', String(row.id), trial)).next();
  return u < solveChance(prompts, hiddenType(row));
}

/** The in-process task runner of the fixture (the feedback a ToolHop rollout gives: question, gold, prediction). */
export function tradeoffRunner(rows: ReadonlyMap<string, ToolhopRow>, seed: number, luck = LUCK): RolloutRunner {
  return async (c, id) => {
    const row = rows.get(id);
    if (!row) throw new Error(`no row ${id}`);
    const won = tradeoffWins(c.prompts, row, seed, 0, luck);
    const predicted = won ? row.answer : wrongAnswer(row.answer);
    return fixtureRollout(row, {
      predicted,
      correct: won,
      toolCalls: Object.keys(row.tools).length,
      answeredBy: 'verifier',
      runs: [
        { role: 'caller', final: `The chain ends with ${predicted}.` },
        { role: 'verifier', final: `<answer>${predicted}</answer>` },
      ],
    });
  };
}

/** The type a reader guesses from the form of a gold answer. */
export function typeFromForm(gold: string): AnswerType {
  const g = gold.trim();
  if (/^-?\d+$/.test(g)) return 'number';
  if (/^\d{4}-\d{2}-\d{2}$/.test(g)) return 'date';
  if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/.test(g)) return 'datetime';
  if (/^[a-z]$/i.test(g)) return 'letter';
  return 'string';
}

/** The gold answer of each example block of a reflection prompt, in order (what the feedback shows). */
function goldsOf(prompt: string): string[] {
  return [...prompt.matchAll(/^Gold answer: (.*)$/gm)].map((m) => m[1]!.trim());
}

export interface CriticOptions {
  /** Chance of writing the overgeneral rule instead of the conditional one. */
  overgeneral: number;
  /** Chance of writing about a random type instead of the one the examples point to. */
  misread: number;
  seed: number;
}
export const CRITIC_DEFAULTS: CriticOptions = { overgeneral: 0.35, misread: 0.15, seed: 0 };

/**
 * The fixture's reflection model: one new rule per answer, appended to the current instruction. Pure in the prompt
 * and the call's key. Without examples (a blind rewrite) it writes a rule about a random type, either version.
 */
export function criticAnswer(prompt: string, key: string, o: CriticOptions = CRITIC_DEFAULTS): string {
  const rng = new Rng(deriveSeed(o.seed, 'critic', key, hashString(prompt)));
  const current = currentOf(prompt);
  const covered = (t: AnswerType) => has(current, CONDITIONAL[t]) || has(current, OVERGENERAL[t]);
  const examples = examplesOf(prompt);
  const golds = goldsOf(prompt);
  const counts = new Map<AnswerType, number>();
  examples.forEach((e, i) => {
    if (!e.wrong || golds[i] === undefined) return;
    const t = typeFromForm(golds[i]!);
    if (!covered(t)) counts.set(t, (counts.get(t) ?? 0) + 1);
  });
  const seen = [...counts].sort((a, b) => b[1] - a[1] || TYPES.indexOf(a[0]) - TYPES.indexOf(b[0]));
  const blind = examples.length === 0;
  const misread = rng.chance(o.misread);
  const overgeneral = rng.chance(blind ? 0.5 : o.overgeneral);
  const open = TYPES.filter((t) => !covered(t));
  const random = open.length ? rng.pick(open) : undefined;
  const type = blind || misread || !seen.length ? random : seen[0]![0];
  if (!type) return `<instruction>\n${current}\n</instruction>`;
  const rule = overgeneral ? OVERGENERAL[type] : CONDITIONAL[type];
  return `Looking at the examples, one rule would have helped.\n<instruction>\n${[current, rule].filter(Boolean).join('\n')}\n</instruction>`;
}

export function criticReflector(o: Partial<CriticOptions> = {}): ReflectionModel {
  const opts = { ...CRITIC_DEFAULTS, ...o };
  return async (prompt, key) => ({
    answer: criticAnswer(prompt, key, opts),
    tokens: { prompt: 50, completion: 20, total: 70 },
  });
}

const TYPE_MIX: AnswerType[] = [
  'number',
  'number',
  'number',
  'number',
  'number',
  'number',
  'string',
  'string',
  'date',
  'date',
  'letter',
  'datetime',
];

/** Rows with ToolHop's answer types in about its proportions and golds of each type's form (ids outside 0–99). */
export function syntheticRows(n: number, seed = 1): ToolhopRow[] {
  const rng = new Rng(deriveSeed(seed, 'tradeoff-rows'));
  const pad = (x: number) => String(x).padStart(2, '0');
  const gold = (t: AnswerType, i: number): string => {
    const date = `${1800 + rng.int(220)}-${pad(1 + rng.int(12))}-${pad(1 + rng.int(28))}`;
    if (t === 'number') return String(rng.int(5000));
    if (t === 'date') return date;
    if (t === 'datetime') return `${date} ${pad(rng.int(24))}:${pad(rng.int(60))}`;
    if (t === 'letter') return 'abcdefghijklmnopqrstuvwxyz'[rng.int(26)]!;
    // ToolHop's strings include binary codes that look like numbers.
    return i % 6 === 0 ? (0b1000000 + rng.int(64)).toString(2) : `word${rng.int(1000)}`;
  };
  return Array.from({ length: n }, (_, i) => {
    const t = rng.pick(TYPE_MIX);
    return {
      id: 1000 + i,
      question: `Synthetic question ${i}: what is the value at the end of chain ${rng.int(1e6)}?`,
      answer: gold(t, i),
      sub_task: { a: '1' },
      tools: { a: { name: `t${i}`, description: '', parameters: { type: 'object' as const, properties: {} } } },
      functions: ['def t(): pass'],
      domain: 'synthetic',
      answer_type: t,
      previous_answer_type: 'number',
    } as ToolhopRow;
  });
}
