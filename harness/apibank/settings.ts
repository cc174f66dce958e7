// The API-Bank suite's settings, read from the environment once at the edge (`toolgauge apibank` flags map onto
// these variables, so `toolgauge apibank --level 2` and `TOOLGAUGE_APIBANK_LEVEL=2 vitest run suites/apibank` are
// the same run).
import { resolve } from 'node:path';
import { z } from 'zod';
import { intFrom, parseEnv } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import type { Sampling } from '../model/types.ts';
import type { ToolSearcherMode } from './env/index.ts';
import type { LevelArg } from './tasks.ts';

export const APIBANK_TOPOLOGIES = ['single', 'independent', 'decentralized', 'centralized', 'sequential'] as const;
export type ApibankTopology = (typeof APIBANK_TOPOLOGIES)[number];
export const APIBANK_PRESETS = ['reference', 'none'] as const;

export const APIBANK_ENV = {
  data: 'TOOLGAUGE_APIBANK_DATA',
  level: 'TOOLGAUGE_APIBANK_LEVEL',
  limit: 'TOOLGAUGE_APIBANK_LIMIT',
  offset: 'TOOLGAUGE_APIBANK_OFFSET',
  only: 'TOOLGAUGE_APIBANK_ONLY',
  'curated-path': 'TOOLGAUGE_APIBANK_CURATED_PATH',
  prompts: 'TOOLGAUGE_APIBANK_PROMPTS',
  'toolsearcher-scorer': 'TOOLGAUGE_APIBANK_TOOLSEARCHER_SCORER',
  'toolsearcher-embeddings': 'TOOLGAUGE_APIBANK_TOOLSEARCHER_EMBEDDINGS',
  topology: 'TOOLGAUGE_APIBANK_TOPOLOGY',
  preset: 'TOOLGAUGE_APIBANK_PRESET',
  'max-tokens': 'TOOLGAUGE_APIBANK_MAX_TOKENS',
} as const;

// normalize_level's aliases.
const LEVEL_ALIASES: Record<string, LevelArg> = {
  all: 'all',
  combined: 'all',
  'api-bank': 'all',
  apibank: 'all',
  '1': '1',
  l1: '1',
  level1: '1',
  'level-1': '1',
  level_1: '1',
  'level-1-given-desc': '1',
  level_1_given_desc: '1',
  '2': '2',
  l2: '2',
  level2: '2',
  'level-2': '2',
  level_2: '2',
  'level-2-toolsearcher': '2',
  level_2_toolsearcher: '2',
  '3': '3',
  l3: '3',
  level3: '3',
  'level-3': '3',
  level_3: '3',
};

const Env = z.object({
  TOOLGAUGE_APIBANK_DATA: z.string().min(1).optional(),
  TOOLGAUGE_APIBANK_LEVEL: z.string().default('all'),
  TOOLGAUGE_APIBANK_LIMIT: intFrom('TOOLGAUGE_APIBANK_LIMIT', 1).optional(),
  TOOLGAUGE_APIBANK_OFFSET: intFrom('TOOLGAUGE_APIBANK_OFFSET').default(0),
  TOOLGAUGE_APIBANK_ONLY: z.string().optional(),
  TOOLGAUGE_APIBANK_CURATED_PATH: z.string().min(1).optional(),
  TOOLGAUGE_APIBANK_PROMPTS: z.string().min(1).optional(),
  TOOLGAUGE_APIBANK_TOOLSEARCHER_SCORER: z
    .enum(['official', 'keyword'], { message: 'TOOLGAUGE_APIBANK_TOOLSEARCHER_SCORER must be official or keyword' })
    .optional(),
  TOOLGAUGE_APIBANK_TOOLSEARCHER_EMBEDDINGS: z.string().min(1).optional(),
  TOOLGAUGE_APIBANK_TOPOLOGY: z
    .enum(APIBANK_TOPOLOGIES, { message: `TOOLGAUGE_APIBANK_TOPOLOGY must be one of ${APIBANK_TOPOLOGIES.join('|')}` })
    .default('single'),
  TOOLGAUGE_APIBANK_PRESET: z
    .enum(APIBANK_PRESETS, { message: 'TOOLGAUGE_APIBANK_PRESET must be reference or none' })
    .default('reference'),
  TOOLGAUGE_APIBANK_MAX_TOKENS: intFrom('TOOLGAUGE_APIBANK_MAX_TOKENS', 1).optional(),
  TOOLGAUGE_TEMPERATURE: z.coerce.number().min(0).max(2).optional(),
  TOOLGAUGE_MAX_TOKENS: intFrom('TOOLGAUGE_MAX_TOKENS', 1).optional(),
});

export interface ApibankSettings {
  /** The data folder (api-bank/, derived/, mas-promptbench/ — the layout of DATA_LAYOUT). */
  data: string | undefined;
  level: LevelArg;
  /** A manifest file ({ids: [...]}) instead of the level's default set. */
  curatedPath: string | undefined;
  /** undefined: the whole set (the reference's sweep passes --limit 100, the size of its frozen set). */
  limit: number | undefined;
  offset: number;
  only: string[] | undefined;
  /** Role prompts in the reference's layout (`<dir>/<topology>/apibank/<role>.txt`); default: the data folder's. */
  promptsDir: string | undefined;
  /** undefined: the reference's default per task level — official for levels 2 and 3, keyword for level 1. */
  toolSearcher: ToolSearcherMode | undefined;
  /** A command that answers the embedding fallback of a frozen-cache miss (argv, split on spaces). */
  embeddingCommand: string[] | undefined;
  topology: ApibankTopology;
  preset: (typeof APIBANK_PRESETS)[number];
  sampling: Omit<Sampling, 'seed'>;
}

/**
 * The reference runner's `_completion_kwargs`, value by value: temperature 0.2, top_p 0.9, max_tokens 1024,
 * repetition_penalty 1.05 and `chat_template_kwargs: {enable_thinking: false}`; seed 0 (the run's `--seed`; team
 * members add their index). `none` sends only what is set. Explicit flags win over the preset.
 */
export function apibankSampling(e: z.infer<typeof Env>): Omit<Sampling, 'seed'> {
  const ref = e.TOOLGAUGE_APIBANK_PRESET === 'reference';
  const maxTokens = e.TOOLGAUGE_APIBANK_MAX_TOKENS ?? e.TOOLGAUGE_MAX_TOKENS ?? (ref ? 1024 : undefined);
  return {
    temperature: e.TOOLGAUGE_TEMPERATURE ?? (ref ? 0.2 : 0),
    ...(ref
      ? { topP: 0.9, extraBody: { repetition_penalty: 1.05, chat_template_kwargs: { enable_thinking: false } } }
      : {}),
    ...(maxTokens ? { maxTokens } : {}),
  };
}

export function readApibankSettings(env: NodeJS.ProcessEnv): ApibankSettings {
  const e = parseEnv(Env, env);
  const level = LEVEL_ALIASES[e.TOOLGAUGE_APIBANK_LEVEL.trim().toLowerCase()];
  if (!level)
    throw new UsageError(`--level: unknown API-Bank level '${e.TOOLGAUGE_APIBANK_LEVEL}' (expected 1, 2, 3 or all)`);
  return {
    data: e.TOOLGAUGE_APIBANK_DATA ? resolve(e.TOOLGAUGE_APIBANK_DATA) : undefined,
    level,
    curatedPath: e.TOOLGAUGE_APIBANK_CURATED_PATH ? resolve(e.TOOLGAUGE_APIBANK_CURATED_PATH) : undefined,
    limit: e.TOOLGAUGE_APIBANK_LIMIT,
    offset: e.TOOLGAUGE_APIBANK_OFFSET,
    only: e.TOOLGAUGE_APIBANK_ONLY?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    promptsDir: e.TOOLGAUGE_APIBANK_PROMPTS ? resolve(e.TOOLGAUGE_APIBANK_PROMPTS) : undefined,
    toolSearcher: e.TOOLGAUGE_APIBANK_TOOLSEARCHER_SCORER,
    embeddingCommand: e.TOOLGAUGE_APIBANK_TOOLSEARCHER_EMBEDDINGS?.split(/\s+/).filter(Boolean),
    topology: e.TOOLGAUGE_APIBANK_TOPOLOGY,
    preset: e.TOOLGAUGE_APIBANK_PRESET,
    sampling: apibankSampling(e),
  };
}

/** The data folder, or a one-line usage error saying how to give it. */
export function dataRootOf(s: Pick<ApibankSettings, 'data'>): string {
  if (!s.data)
    throw new UsageError(
      'API-Bank: no data folder: pass --data DIR (or TOOLGAUGE_APIBANK_DATA) — a folder with api-bank/, derived/ and mas-promptbench/',
    );
  return s.data;
}
