import { z } from 'zod';
import { parseEnv } from '../../core/config.ts';
import { fromRoot } from '../../core/paths.ts';
import { FAMILIES, type Family } from '../../parse/index.ts';
import type { ProbeCase } from '../cases/types.ts';

/**
 * The probe suite's own settings, from the environment (the CLI turns flags into these; plain `vitest run
 * suites/probe` reads the same). Kept apart from harness/core/config.ts, which holds what every suite shares.
 */

export const TRANSPORTS = ['chat', 'completions'] as const;
export type Transport = (typeof TRANSPORTS)[number];
export const SPLITS = ['dev', 'test', 'all'] as const;

const list = z.string().transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean));

const ProbeEnvSchema = z.object({
  TOOLGAUGE_PROBE_CASES: z.string().min(1).optional(),
  TOOLGAUGE_PROBE_TOOLS: z.string().min(1).optional(),
  TOOLGAUGE_PROBE_TRANSPORT: z.enum(TRANSPORTS).default('chat'),
  TOOLGAUGE_PROBE_TEMPLATE: z.string().min(1).optional(),
  TOOLGAUGE_PROBE_FAMILY: z.enum(['auto', ...FAMILIES]).default('auto'),
  TOOLGAUGE_PROBE_SPLIT: z.enum(SPLITS).default('all'),
  TOOLGAUGE_PROBE_ONLY: list.optional(),
  TOOLGAUGE_PROBE_CATEGORIES: list.optional(),
});

export interface ProbeSettings {
  casesFile: string;
  /** Explicit palette; undefined = tools.yaml / tools.json beside the cases file. */
  toolsFile: string | undefined;
  transport: Transport;
  /** The chat template: rendered by toolgauge (completions) or naming the server's template (chat). */
  templateFile: string | undefined;
  /** Parser family override; 'auto' = from the template, else auto-detection. */
  family: Family | 'auto';
  split: (typeof SPLITS)[number];
  only: string[] | undefined;
  categories: string[] | undefined;
}

export const DEFAULT_CASES = 'cases/probe/cases.jsonl';

export function readProbeEnv(env: NodeJS.ProcessEnv): ProbeSettings {
  const e = parseEnv(ProbeEnvSchema, env);
  return {
    casesFile: e.TOOLGAUGE_PROBE_CASES ?? fromRoot(DEFAULT_CASES),
    toolsFile: e.TOOLGAUGE_PROBE_TOOLS,
    transport: e.TOOLGAUGE_PROBE_TRANSPORT,
    templateFile: e.TOOLGAUGE_PROBE_TEMPLATE,
    family: e.TOOLGAUGE_PROBE_FAMILY,
    split: e.TOOLGAUGE_PROBE_SPLIT,
    only: e.TOOLGAUGE_PROBE_ONLY,
    categories: e.TOOLGAUGE_PROBE_CATEGORIES,
  };
}

/** The cases a run covers: split, then `--categories`, then `--only`. */
export function selectCases(cases: readonly ProbeCase[], s: Pick<ProbeSettings, 'split' | 'only' | 'categories'>): ProbeCase[] {
  const cats = s.categories ? new Set(s.categories.map((c) => c.toUpperCase())) : null;
  const only = s.only ? new Set(s.only) : null;
  return cases.filter((c) => (s.split === 'all' || c.split === s.split) && (!cats || cats.has(c.cat.toUpperCase())) && (!only || only.has(c.id)));
}
