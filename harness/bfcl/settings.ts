// The BFCL suite's settings, read from the environment once at the edge (`toolgauge bfcl` flags map onto these
// variables, so `toolgauge bfcl --category multiple` and `TOOLGAUGE_BFCL_CATEGORY=multiple vitest run suites/bfcl`
// are the same run).
import { resolve } from 'node:path';
import { z } from 'zod';
import { intFrom, parseEnv } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { expandCategories, type BfclCategory } from './categories.ts';
import { BFCL_HF_REVISION } from './hf.ts';

/**
 * The default selection: BFCL's best-known category, 400 single-turn Python cases that need no executor — a quick,
 * meaningful first run. A leaderboard-comparable overall needs `--category all_scoring`.
 */
export const DEFAULT_CATEGORY = 'simple_python';

export const BFCL_ENV = {
  category: 'TOOLGAUGE_BFCL_CATEGORY',
  data: 'TOOLGAUGE_BFCL_DATA',
  mode: 'TOOLGAUGE_BFCL_MODE',
  // The variable findBfclSource already reads (rescore and the tests use it too).
  'bfcl-source': 'TOOLGAUGE_BFCL_SOURCE',
  revision: 'TOOLGAUGE_BFCL_REVISION',
  only: 'TOOLGAUGE_BFCL_ONLY',
  limit: 'TOOLGAUGE_BFCL_LIMIT',
} as const;

const Env = z.object({
  TOOLGAUGE_BFCL_CATEGORY: z.string().default(DEFAULT_CATEGORY),
  TOOLGAUGE_BFCL_DATA: z.string().optional(),
  TOOLGAUGE_BFCL_MODE: z.enum(['fc', 'prompt'], { message: 'TOOLGAUGE_BFCL_MODE must be fc or prompt' }).default('fc'),
  TOOLGAUGE_BFCL_SOURCE: z.string().optional(),
  TOOLGAUGE_BFCL_REVISION: z.string().default(BFCL_HF_REVISION),
  TOOLGAUGE_BFCL_ONLY: z.string().optional(),
  TOOLGAUGE_BFCL_LIMIT: intFrom('TOOLGAUGE_BFCL_LIMIT', 1).optional(),
});

export interface BfclSettings {
  /** The categories to run, expanded from names and groups, sorted. */
  categories: BfclCategory[];
  /** What was asked for (names and groups), for the report. */
  requested: string[];
  /** BFCL's data folder; undefined: the Hugging Face download (`revision`) into the hub cache. */
  data: string | undefined;
  revision: string;
  /** fc: native tool calls (`tools`); prompt: BFCL's system prompt and `[func(a=1)]` output. */
  mode: 'fc' | 'prompt';
  /** Where BFCL's simulated API classes are (multi-turn); undefined: findBfclSource's other places. */
  bfclSource: string | undefined;
  only: string[] | undefined;
  /** The first N cases of each category (quick runs); undefined: all. */
  limit: number | undefined;
}

/**
 * BFCL's `underscore_to_dot` model flag, as its OpenAI-compatible handlers set it: in FC mode tool names are sent
 * with `.` replaced by `_` (such endpoints refuse dots) and the checker compares the expected `a.b` as `a_b`; in
 * prompt mode names travel as written.
 */
export const underscoreToDotOf = (s: Pick<BfclSettings, 'mode'>): boolean => s.mode === 'fc';

export function readBfclSettings(env: NodeJS.ProcessEnv): BfclSettings {
  const e = parseEnv(Env, env);
  const requested = e.TOOLGAUGE_BFCL_CATEGORY.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let categories: BfclCategory[];
  try {
    categories = expandCategories(requested);
  } catch (err) {
    throw new UsageError(`--category: ${(err as Error).message}`);
  }
  if (!categories.length) throw new UsageError('--category: no BFCL category given');
  return {
    categories,
    requested,
    data: e.TOOLGAUGE_BFCL_DATA ? resolve(e.TOOLGAUGE_BFCL_DATA) : undefined,
    revision: e.TOOLGAUGE_BFCL_REVISION,
    mode: e.TOOLGAUGE_BFCL_MODE,
    bfclSource: e.TOOLGAUGE_BFCL_SOURCE ? resolve(e.TOOLGAUGE_BFCL_SOURCE) : undefined,
    only: e.TOOLGAUGE_BFCL_ONLY?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    limit: e.TOOLGAUGE_BFCL_LIMIT,
  };
}
