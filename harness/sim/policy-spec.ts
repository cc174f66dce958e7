import { z } from 'zod';

/**
 * A simulator model name: `sim:<policy>[?opt=value&…]`, e.g. `sim:coin?p=0.6&seed=3`. Options are validated per
 * policy so a typo fails the run at once rather than silently meaning something else.
 */
export const POLICIES = [
  'oracle',
  'naive',
  'wrong',
  'untagged',
  'coin',
  'fault',
  'flaky',
  'trait',
  'reflect',
  'wrong_name',
  'wrong_arg',
  'no_call',
  'judge',
] as const;
export type PolicyName = (typeof POLICIES)[number];

/** Other spellings of a policy: `sim:wrong_args` is `sim:wrong_arg`. */
const ALIASES: Record<string, PolicyName> = { wrong_args: 'wrong_arg' };

export const FAULT_CAUSES = ['template_bug', 'parser_gap', 'format_failure', 'decision_failure'] as const;

/**
 * The hidden row traits of the optimizer calibration fixture (`sim:trait` solves a row well only when its role
 * prompt carries an instruction about the row's trait; `sim:reflect` writes such instructions from feedback about
 * failing rows). `question` is a trait unique to each row: instructions about it are memorised answers.
 */
export const TRAIT_KINDS = ['answer_type', 'previous_answer_type', 'domain', 'question'] as const;
export type TraitKind = (typeof TRAIT_KINDS)[number];

const num01 = z.coerce.number().min(0).max(1);
const common = {
  latency_ms: z.coerce.number().int().min(0).default(0),
  seed: z.coerce.number().int().min(0).default(0),
};

const OptionSchemas = {
  oracle: z.object({ ...common }).strict(),
  naive: z.object({ ...common }).strict(),
  wrong: z.object({ ...common }).strict(),
  untagged: z.object({ ...common }).strict(),
  coin: z
    .object({
      ...common,
      p: num01.default(0.5),
      wrong: z.enum(['shared', 'diverse']).default('shared'),
      tools: z.enum(['chain', 'none']).default('chain'),
    })
    .strict(),
  fault: z.object({ ...common, cause: z.enum(FAULT_CAUSES) }).strict(),
  flaky: z.object({ ...common, rate: num01.default(0.2) }).strict(),
  trait: z
    .object({
      ...common,
      trait: z.enum(TRAIT_KINDS).default('answer_type'),
      lo: num01.default(0.2),
      hi: num01.default(0.9),
    })
    .strict()
    .refine((o) => o.lo <= o.hi, { message: 'lo must not exceed hi', path: ['lo'] }),
  reflect: z
    .object({
      ...common,
      trait: z.enum(TRAIT_KINDS).default('answer_type'),
      max: z.coerce.number().int().min(1).max(50).default(2),
    })
    .strict(),
  // API-Bank's planted failures: another API's name, one argument changed, no call at all.
  wrong_name: z.object({ ...common }).strict(),
  wrong_arg: z.object({ ...common }).strict(),
  no_call: z.object({ ...common }).strict(),
  // Maze's simulated LLM judge: the share of verdicts replaced by another label, and of replies with no verdict.
  judge: z.object({ ...common, disagree: num01.default(0), invalid: num01.default(0) }).strict(),
} satisfies Record<PolicyName, z.ZodType>;

export interface PolicySpec {
  name: PolicyName;
  latencyMs: number;
  seed: number;
  p: number;
  rate: number;
  cause?: (typeof FAULT_CAUSES)[number];
  /**
   * sim:coin's losing answer on a row: `shared` (default) — the same wrong value for every agent, so team votes
   * follow binomial arithmetic; `diverse` — a different wrong value per agent, so votes can tie.
   */
  wrong?: 'shared' | 'diverse';
  /**
   * sim:coin: `chain` (default) — a winning coin runs the row's tool chain before it answers; `none` — every answer
   * comes at once, without tools (statistics checks that need the coin and not the tools run far cheaper).
   */
  coinTools?: 'chain' | 'none';
  /**
   * sim:trait / sim:reflect: the hidden trait; the chance to solve a row without / with an instruction about its
   * trait (sim:trait); how many new instructions one reflection writes at most (sim:reflect).
   */
  trait?: { kind: TraitKind; lo: number; hi: number; maxNew: number };
  /** sim:judge: the share of verdicts it replaces by another label, and of replies it gives without a verdict. */
  judge?: { disagree: number; invalid: number };
  /** The model string as given. */
  raw: string;
}

export function isSimModel(model: string): boolean {
  return model.startsWith('sim:');
}

/** Parse `sim:…`; throws an Error with a one-line message naming the bad part. */
export function parsePolicySpec(model: string): PolicySpec {
  if (!isSimModel(model)) throw new Error(`'${model}' is not a simulator model (sim:${POLICIES.join('|sim:')})`);
  const rest = model.slice(4);
  const q = rest.indexOf('?');
  const given = q < 0 ? rest : rest.slice(0, q);
  const name = (ALIASES[given] ?? given) as PolicyName;
  if (!POLICIES.includes(name))
    throw new Error(`unknown simulator policy '${name}' (expected one of ${POLICIES.join(', ')})`);
  const params = Object.fromEntries(new URLSearchParams(q < 0 ? '' : rest.slice(q + 1)));
  const r = OptionSchemas[name].safeParse(params);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const key = issue.code === 'unrecognized_keys' ? issue.keys.join(',') : String(issue.path[0] ?? '');
    throw new Error(`sim:${name}: option '${key}': ${issue.message}`);
  }
  const o = r.data as Record<string, unknown>;
  return {
    name,
    latencyMs: o.latency_ms as number,
    seed: o.seed as number,
    p: (o.p as number | undefined) ?? 0.5,
    rate: (o.rate as number | undefined) ?? 0,
    cause: o.cause as PolicySpec['cause'],
    ...(name === 'coin'
      ? { wrong: o.wrong as PolicySpec['wrong'], coinTools: o.tools as PolicySpec['coinTools'] }
      : {}),
    ...(name === 'judge' ? { judge: { disagree: o.disagree as number, invalid: o.invalid as number } } : {}),
    ...(name === 'trait' || name === 'reflect'
      ? {
          trait: {
            kind: o.trait as TraitKind,
            lo: (o.lo as number | undefined) ?? 0,
            hi: (o.hi as number | undefined) ?? 1,
            maxNew: (o.max as number | undefined) ?? 0,
          },
        }
      : {}),
    raw: model,
  };
}
