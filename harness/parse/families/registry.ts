/**
 * Every family's parser and renderer, the order `format: 'auto'` tries them in, and what each strict tier
 * accepts (the serving framework whose parser defines it).
 */
import { FAMILIES, type Family, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { parseApertus, renderApertus } from './apertus.ts';
import { parseCommandR, renderCommandR } from './command_r.ts';
import { parseDeepseek, renderDeepseek } from './deepseek.ts';
import { parseDeepseekDsml, renderDeepseekDsml } from './deepseek_dsml.ts';
import { parseFirefunction, renderFirefunction } from './firefunction.ts';
import { parseFunctionary, renderFunctionary } from './functionary.ts';
import { parseGemma4, renderGemma4 } from './gemma4.ts';
import { parseGlm, renderGlm } from './glm.ts';
import { parseGptOss, renderGptOss } from './gpt_oss.ts';
import { parseGranite, renderGranite } from './granite.ts';
import { parseHermes, renderHermes } from './hermes.ts';
import { parseInternlm, renderInternlm } from './internlm.ts';
import { parseJamba, renderJamba } from './jamba.ts';
import { parseKimiK2, renderKimiK2 } from './kimi_k2.ts';
import { parseLfm2, renderLfm2 } from './lfm2.ts';
import { parseLlamaJson, renderLlamaJson } from './llama_json.ts';
import { parsePythonic, renderPythonic } from './llama_pythonic.ts';
import { parseMinicpm, renderMinicpm } from './minicpm.ts';
import { parseMinimax, renderMinimax } from './minimax.ts';
import { parseMistral, renderMistral } from './mistral.ts';
import { parseNemotron, renderNemotron } from './nemotron.ts';
import { parsePhi4Mini, renderPhi4Mini } from './phi4_mini.ts';
import { parseQwen3Xml, renderQwen3Xml } from './qwen3_xml.ts';
import { parseSeedOss, renderSeedOss } from './seed_oss.ts';
import { parseXlam, renderXlam } from './xlam.ts';

export const PARSERS: Record<Family, (text: string, ctx: ParseCtx) => FamilyResult> = {
  hermes: parseHermes,
  qwen3_xml: parseQwen3Xml,
  llama_json: parseLlamaJson,
  llama_pythonic: parsePythonic,
  mistral: parseMistral,
  granite: parseGranite,
  gemma4: parseGemma4,
  deepseek: parseDeepseek,
  functionary: parseFunctionary,
  gpt_oss: parseGptOss,
  glm: parseGlm,
  kimi_k2: parseKimiK2,
  deepseek_dsml: parseDeepseekDsml,
  minimax: parseMinimax,
  seed_oss: parseSeedOss,
  lfm2: parseLfm2,
  apertus: parseApertus,
  minicpm: parseMinicpm,
  command_r: parseCommandR,
  nemotron: parseNemotron,
  xlam: parseXlam,
  firefunction: parseFirefunction,
  phi4_mini: parsePhi4Mini,
  jamba: parseJamba,
  internlm: parseInternlm,
};

export const RENDERERS: Record<Family, (calls: ParsedCall[]) => string> = {
  hermes: renderHermes,
  qwen3_xml: renderQwen3Xml,
  llama_json: renderLlamaJson,
  llama_pythonic: renderPythonic,
  mistral: renderMistral,
  granite: renderGranite,
  gemma4: renderGemma4,
  deepseek: renderDeepseek,
  functionary: renderFunctionary,
  gpt_oss: renderGptOss,
  glm: renderGlm,
  kimi_k2: renderKimiK2,
  deepseek_dsml: renderDeepseekDsml,
  minimax: renderMinimax,
  seed_oss: renderSeedOss,
  lfm2: renderLfm2,
  apertus: renderApertus,
  minicpm: renderMinicpm,
  command_r: renderCommandR,
  nemotron: renderNemotron,
  xlam: renderXlam,
  firefunction: renderFirefunction,
  phi4_mini: renderPhi4Mini,
  jamba: renderJamba,
  internlm: renderInternlm,
};

/**
 * A cheap necessary condition per family, on the lower-cased text: when it fails the family's parser (either tier)
 * cannot find or attempt anything, so it is not run. Each gate is a superset of every marker spelling the family's
 * loose regexes accept.
 */
export const GATES: Record<Family, (lower: string) => boolean> = {
  hermes: (l) => l.includes('tool_call'),
  qwen3_xml: (l) => l.includes('function'),
  llama_json: (l) => l.includes('{'),
  llama_pythonic: (l) => l.includes('(') && l.includes('['),
  mistral: (l) => l.includes('tool_calls'),
  granite: (l) => l.includes('tool_call'),
  gemma4: (l) => l.includes('tool_call'),
  deepseek: (l) => l.includes('tool'),
  functionary: (l) => l.includes('>>>') || l.includes('function') || l.includes('{'),
  gpt_oss: (l) => l.includes('<|channel|>') || l.includes('functions.'),
  glm: (l) => l.includes('tool_call'),
  kimi_k2: (l) => l.includes('tool_call'),
  deepseek_dsml: (l) => l.includes('dsml'),
  minimax: (l) => l.includes('invoke'),
  seed_oss: (l) => l.includes('seed'),
  lfm2: (l) => l.includes('tool_call_start'),
  apertus: (l) => l.includes('tools_prefix'),
  minicpm: (l) => l.includes('function'),
  command_r: (l) => l.includes('start_action') || l.includes('action:'),
  nemotron: (l) => l.includes('toolcall'),
  xlam: (l) => l.includes('['),
  firefunction: (l) => l.includes('functools'),
  phi4_mini: (l) => l.includes('tool_call') || l.includes('functools'),
  jamba: (l) => l.includes('tool_calls'),
  internlm: (l) => l.includes('action_start'),
};

/**
 * The strict tier's sharper necessary condition, on the text as written: the exact marker the family's strict parser
 * opens on (a strict parse matches its markers case-sensitively and without inner spaces), tested on the text as
 * written, so the strict pass needs no lower-cased copy. `parse/gates.test.ts` checks on a generated corpus that
 * skipping a family on these gates never changes a parse.
 */
export const STRICT_GATES: Record<Family, (text: string) => boolean> = {
  hermes: (t) => t.includes('<tool_call>'),
  qwen3_xml: (t) => t.includes('<function'),
  llama_json: (t) => t.includes('{'),
  llama_pythonic: (t) => t.includes('(') && t.includes('['),
  mistral: (t) => t.includes('[TOOL_CALLS]'),
  granite: (t) => t.includes('tool_call'),
  gemma4: (t) => t.includes('<|tool_call>'),
  deepseek: (t) => t.includes('tool▁call'),
  functionary: (t) => t.includes('>>>') || t.includes('function') || t.includes('{'),
  gpt_oss: (t) => t.includes('<|channel|>') || t.includes('functions.'),
  glm: (t) => t.includes('<tool_call>'),
  kimi_k2: (t) => t.includes('<|tool_call'),
  deepseek_dsml: (t) => t.includes('DSML'),
  minimax: (t) => t.includes('invoke'),
  seed_oss: (t) => t.includes('<seed:tool_call>'),
  lfm2: (t) => t.includes('<|tool_call_start|>'),
  apertus: (t) => t.includes('<|tools_prefix|>'),
  minicpm: (t) => t.includes('function'),
  command_r: (t) => t.includes('<|START_ACTION|>') || t.includes('Action:'),
  nemotron: (t) => t.includes('<TOOLCALL>'),
  xlam: (t) => t.includes('['),
  firefunction: (t) => t.includes('functools'),
  phi4_mini: (t) => t.includes('<|/tool_call|>') || t.includes('functools'),
  jamba: (t) => t.includes('<tool_calls>'),
  internlm: (t) => t.includes('<|action_start|>'),
};

/**
 * What every strict gate above needs, found in one scan: a family's gate can pass only when one of its keys (a piece of
 * each of its gate's markers) occurs in the text, so the strict pass evaluates the gates of those families alone instead
 * of testing every family's markers one by one. `null`: the gate is always evaluated (the bare formats, whose gates are
 * single characters, and Functionary, whose `>>>` can overlap the end of another marker). No key is part of another or
 * overlaps another's start with its end, so one left-to-right scan sees every key that occurs
 * (`parse/gates.test.ts` checks both).
 */
export const STRICT_KEYS: Record<Family, readonly string[] | null> = {
  hermes: ['tool_call'],
  qwen3_xml: ['function'],
  llama_json: null,
  llama_pythonic: null,
  mistral: ['[TOOL_CALLS]'],
  granite: ['tool_call'],
  gemma4: ['tool_call'],
  deepseek: ['tool▁call'],
  functionary: null,
  gpt_oss: ['<|channel|>', 'function'],
  glm: ['tool_call'],
  kimi_k2: ['tool_call'],
  deepseek_dsml: ['DSML'],
  minimax: ['invoke'],
  seed_oss: ['tool_call'],
  lfm2: ['tool_call'],
  apertus: ['<|tools_prefix|>'],
  minicpm: ['function'],
  command_r: ['<|START_ACTION|>', 'Action:'],
  nemotron: ['TOOLCALL'],
  xlam: null,
  firefunction: ['functools'],
  phi4_mini: ['tool_call', 'functools'],
  jamba: ['tool_call'],
  internlm: ['<|action_start|>'],
};

/** One bit per family (in FAMILIES order). */
export const FAMILY_BIT = Object.fromEntries(FAMILIES.map((f, i) => [f, 1 << i])) as Record<Family, number>;
/** The families whose gate is always evaluated. */
const ALWAYS = FAMILIES.reduce((m, f) => (STRICT_KEYS[f] === null ? m | FAMILY_BIT[f] : m), 0);
const KEY_FAMILIES = new Map<string, number>();
for (const f of FAMILIES)
  for (const k of STRICT_KEYS[f] ?? []) KEY_FAMILIES.set(k, (KEY_FAMILIES.get(k) ?? 0) | FAMILY_BIT[f]);
const KEYS = [...KEY_FAMILIES.keys()];
const KEY_MASKS = KEYS.map((k) => KEY_FAMILIES.get(k)!);
const KEY_SCAN = new RegExp(KEYS.map((k) => k.replace(/[|[\]{}()*+?.\\^$]/g, '\\$&')).join('|'), 'g');

/** The families whose strict gate may pass on `text`, as a mask of FAMILY_BIT (a superset of the gates that pass). */
export function strictGateMask(text: string): number {
  let mask = ALWAYS;
  KEY_SCAN.lastIndex = 0;
  // `test` moves past each match without building a match array; the key that ended there is the only one that does
  // (no key ends another)
  while (KEY_SCAN.test(text)) {
    const end = KEY_SCAN.lastIndex;
    for (let k = 0; k < KEYS.length; k++)
      if (text.startsWith(KEYS[k]!, end - KEYS[k]!.length)) {
        mask |= KEY_MASKS[k]!;
        break;
      }
  }
  return mask;
}

/**
 * Distinctive markers first; GLM before Qwen3 XML before Hermes (all open with `<tool_call>`); Phi-4-mini
 * (`<|tool_call|>…<|/tool_call|>`) before Granite (`<|tool_call|>[…]`); Hermes before Granite (Granite 4 writes
 * Hermes blocks; only its stringified arguments are Granite's own); bare formats last.
 */
export const AUTO_ORDER: readonly Family[] = [
  'gpt_oss',
  'kimi_k2',
  'deepseek_dsml',
  'deepseek',
  'minimax',
  'seed_oss',
  'lfm2',
  'apertus',
  'command_r',
  'nemotron',
  'internlm',
  'jamba',
  'gemma4',
  'mistral',
  'phi4_mini',
  'glm',
  'qwen3_xml',
  'hermes',
  'granite',
  'minicpm',
  'functionary',
  'firefunction',
  'llama_pythonic',
  'llama_json',
  'xlam',
];

export interface StrictTierDoc {
  /** the serving framework parser(s) whose acceptance the strict tier follows */
  framework: string;
  /** what the strict tier accepts, in one sentence */
  accepts: string;
}

/** What "strict" means, per family: what the model's own framework parser accepts. */
export const STRICT_TIER: Record<Family, StrictTierDoc> = {
  hermes: {
    framework: 'vLLM hermes, llama.cpp',
    accepts: '`<tool_call>{"name", "arguments"}</tool_call>` blocks, prose around them',
  },
  qwen3_xml: {
    framework: 'vLLM qwen3coder / qwen3_xml, llama.cpp',
    accepts:
      '`<function=NAME><parameter=K>v</parameter></function>` blocks with or without `<tool_call>`; a missing `</parameter>` before the next parameter; values typed by the schema',
  },
  llama_json: {
    framework: 'vLLM llama3_json',
    accepts:
      'JSON objects `{"name", "parameters"|"arguments"}` after an optional `<|python_tag|>`, `;`/newline separated; with the family named, prose around them (every `{…}` must then be a call)',
  },
  llama_pythonic: {
    framework: 'vLLM pythonic / llama4_pythonic',
    accepts: 'the whole output one `[f(a=1), …]` list of keyword calls with Python literal values',
  },
  mistral: {
    framework: 'vLLM mistral, llama.cpp',
    accepts:
      '`[TOOL_CALLS][{…}]` (< v11) or `[TOOL_CALLS]NAME[ARGS]{…}` (v11+, also `NAME{…}` when `[ARGS]` was dropped as a special token), optional `[CALL_ID]`',
  },
  granite: {
    framework: 'vLLM granite / granite4',
    accepts:
      "`<|tool_call|>[…]` or Granite 3.1's `<tool_call>[…]` list; Granite 4's `<tool_call>{…}</tool_call>` with stringified arguments",
  },
  gemma4: {
    framework: 'vLLM gemma4',
    accepts: '`<|tool_call>call:NAME{k:v,…}<tool_call|>` with `<|"|>`-quoted strings',
  },
  deepseek: {
    framework: 'vLLM deepseek_v3 / deepseek_v31, llama.cpp',
    accepts: 'the `<｜tool▁calls▁begin｜>` markup of V3 (fenced JSON) and V3.1 (bare JSON)',
  },
  functionary: {
    framework: 'vLLM / llama.cpp functionary',
    accepts:
      '`>>>NAME\\n{…}` segments (v3.2; the first `>>>` implied when the family is named) and `<function=NAME>{…}</function>` (v3.1)',
  },
  gpt_oss: {
    framework: 'vLLM openai (harmony), llama.cpp',
    accepts: 'harmony messages whose recipient is `functions.NAME` with a JSON body; `<|call|>` may be stripped',
  },
  glm: {
    framework: 'vLLM glm4_moe / glm47, llama.cpp',
    accepts: '`<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>…</tool_call>`, with or without newlines',
  },
  kimi_k2: {
    framework: 'vLLM kimi_k2, llama.cpp',
    accepts:
      '`<|tool_call_begin|>functions.NAME:i<|tool_call_argument_begin|>{…}<|tool_call_end|>`, section markers optional',
  },
  deepseek_dsml: {
    framework: 'vLLM deepseekv32 / deepseekv4, llama.cpp',
    accepts:
      '`<｜DSML｜function_calls>` (V3.2) or `<｜DSML｜tool_calls>` (V4) with `invoke`/`parameter string="true|false"`',
  },
  minimax: {
    framework: 'vLLM minimax_m2 / minimax_m3, llama.cpp',
    accepts:
      '`<minimax:tool_call><invoke name=…><parameter name=…>v</parameter></invoke></minimax:tool_call>`; M3: `]<]minimax[>[<tool_call>` with nested elements typed by the schema',
  },
  seed_oss: { framework: 'vLLM seed_oss, llama.cpp', accepts: 'Qwen3-XML function blocks inside `<seed:tool_call>`' },
  lfm2: {
    framework: 'vLLM lfm2, llama.cpp',
    accepts: '`<|tool_call_start|>[f(a=1), …]<|tool_call_end|>` (Python or JSON literals), or a JSON list there',
  },
  apertus: { framework: 'vLLM apertus, llama.cpp', accepts: '`<|tools_prefix|>[{"NAME": {…}}, …]<|tools_suffix|>`' },
  minicpm: {
    framework: 'vLLM minicpm5',
    accepts:
      '`<function name="NAME"><param name="K">v</param></function>`; unknown tools/parameters refused when tools are given',
  },
  command_r: {
    framework: 'vLLM cohere_command, llama.cpp',
    accepts: '`<|START_ACTION|>[{"tool_name", "parameters"}]<|END_ACTION|>` or `Action: ```json […]```',
  },
  nemotron: {
    framework: 'vLLM nemotron_json, llama.cpp',
    accepts: '`<TOOLCALL>[{"name", "arguments"}]</TOOLCALL>` (or one object)',
  },
  xlam: {
    framework: 'vLLM xlam',
    accepts:
      'the whole output (or a ```json fence, or after `[TOOL_CALLS]`, or in `<tool_call>…</tool_call>`) one JSON list of `{"name", "arguments"}`',
  },
  firefunction: {
    framework: 'llama.cpp firefunction_v2',
    accepts: '`functools[{"name", "arguments"}, …]` at the end of the output',
  },
  phi4_mini: {
    framework: 'vLLM phi4_mini_json, llama.cpp',
    accepts: '`<|tool_call|>{…}<|/tool_call|>` or `functools[…]` (prose around it), `arguments` or `parameters`',
  },
  jamba: { framework: 'vLLM jamba', accepts: '`<tool_calls>[{"name", "arguments"}]</tool_calls>`' },
  internlm: {
    framework: 'vLLM internlm2',
    accepts: '`<|action_start|><|plugin|>{"name", "parameters"}<|action_end|>`',
  },
};
