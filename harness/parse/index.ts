/**
 * Tool-call parsers for every model family, in two tiers, returning all calls.
 *
 * - strict: only what the family's native format specifies (see each file in ./families/). With
 *   `format: 'auto'` every family is tried in AUTO_ORDER (distinctive markers first, bare formats last) and
 *   the first family that parses cleanly wins.
 * - lenient (default): strict first; if it finds nothing, the family parsers again in loose mode (sloppy
 *   markers, missing closing tags, loose JSON, alias keys…) merged with the generic rescue (generic.ts).
 *   With `tools`, argument types are coerced by schema, and — only for rescued calls, only when at least one
 *   rescued call names a listed tool — rescued calls naming unlisted tools are dropped. Calls the strict tier
 *   parsed keep their names (a well-formed call to an unknown tool is a model decision, not a parse issue).
 *
 * Neither tier invents calls: prose without a call and truncated calls give no call.
 * `parseToolCalls` never throws.
 */
import { coerceArgs } from './coerce.ts';
import { detectAttempt, unbalancedTail } from './detect.ts';
import { parseDeepseek, renderDeepseek } from './families/deepseek.ts';
import { parseFunctionary, renderFunctionary } from './families/functionary.ts';
import { parseGemma4, renderGemma4 } from './families/gemma4.ts';
import { parseGranite, renderGranite } from './families/granite.ts';
import { parseHermes, renderHermes } from './families/hermes.ts';
import { parseLlamaJson, renderLlamaJson } from './families/llama_json.ts';
import { parsePythonic, renderPythonic } from './families/llama_pythonic.ts';
import { parseMistral, renderMistral } from './families/mistral.ts';
import { parseQwen3Xml, renderQwen3Xml } from './families/qwen3_xml.ts';
import { genericScan } from './generic.ts';
import { findTool } from './normalize.ts';
import {
  FAMILIES,
  type Family,
  type FamilyResult,
  type Located,
  type ParseCtx,
  type ParseOptions,
  type ParseResult,
  type ParsedCall,
  type ToolSchema,
} from './types.ts';
import { overlaps, stripEndTokens } from './util.ts';

export { FAMILIES };
export type { Family, ParsedCall, ParseOptions, ParseResult, ToolSchema };
export { familyOfTemplate } from './template.ts';

const PARSERS: Record<Family, (text: string, ctx: ParseCtx) => FamilyResult> = {
  hermes: parseHermes,
  qwen3_xml: parseQwen3Xml,
  llama_json: parseLlamaJson,
  llama_pythonic: parsePythonic,
  mistral: parseMistral,
  granite: parseGranite,
  gemma4: parseGemma4,
  deepseek: parseDeepseek,
  functionary: parseFunctionary,
};

const RENDERERS: Record<Family, (calls: ParsedCall[]) => string> = {
  hermes: renderHermes,
  qwen3_xml: renderQwen3Xml,
  llama_json: renderLlamaJson,
  llama_pythonic: renderPythonic,
  mistral: renderMistral,
  granite: renderGranite,
  gemma4: renderGemma4,
  deepseek: renderDeepseek,
  functionary: renderFunctionary,
};

/** Distinctive markers first; qwen3_xml before hermes (same wrapper tag); bare formats last. */
export const AUTO_ORDER: readonly Family[] = [
  'deepseek',
  'gemma4',
  'mistral',
  'granite',
  'qwen3_xml',
  'hermes',
  'functionary',
  'llama_pythonic',
  'llama_json',
];

function plain(calls: Located[]): ParsedCall[] {
  return calls.map((c) => ({ name: c.name, arguments: c.arguments }));
}

export function parseToolCalls(text: string, opts: ParseOptions = {}): ParseResult {
  try {
    return parseInner(typeof text === 'string' ? text : String(text), opts);
  } catch {
    // Defensive: the parsers are written not to throw; a bug must not take a benchmark run down.
    return { tier: 'none', format: null, calls: [], attempted: false, truncated: false, notes: ['parser error'] };
  }
}

function parseInner(text: string, opts: ParseOptions): ParseResult {
  const tier = opts.tier ?? 'lenient';
  const format = opts.format ?? 'auto';
  const families = format === 'auto' ? AUTO_ORDER : [format];
  const tools = opts.tools;
  const explicit = format !== 'auto';
  let attempted = detectAttempt(text);
  let truncated = false;

  for (const f of families) {
    const r = PARSERS[f](text, { loose: false, notes: new Set(), tools, explicit });
    attempted ||= r.attempted;
    truncated ||= r.truncated;
    if (r.ok && r.calls.length > 0) {
      const calls = plain(r.calls);
      if (tier === 'lenient' && tools) {
        const notes = new Set<string>();
        const coerced = coerceCalls(calls, tools, notes);
        if (notes.size > 0) return { tier: 'lenient', format: f, calls: coerced, attempted: true, truncated, notes: [...notes] };
      }
      return { tier: 'strict', format: f, calls, attempted: true, truncated, notes: [] };
    }
  }
  if (tier === 'strict') {
    truncated ||= attempted && unbalancedTail(text);
    return { tier: 'none', format: null, calls: [], attempted, truncated, notes: [] };
  }

  // Lenient: family parsers in loose mode, then the generic rescue on what they did not claim.
  const notes = new Set<string>();
  const found: Array<Located & { format: Family | 'json' | 'python' }> = [];
  const claimed: Array<[number, number]> = [];
  for (const f of families) {
    const ctx: ParseCtx = { loose: true, notes: new Set(), tools, explicit };
    const r = PARSERS[f](text, ctx);
    attempted ||= r.attempted;
    truncated ||= r.truncated;
    const fresh = r.calls.filter((c) => !overlaps(claimed, c.start));
    if (fresh.length === 0) continue;
    for (const c of fresh) found.push({ ...c, format: f });
    for (const x of ctx.notes) notes.add(x);
    claimed.push(...r.spans);
  }
  const gctx: ParseCtx = { loose: true, notes: new Set(), tools, explicit };
  const g = genericScan(text, claimed, gctx);
  attempted ||= g.attempted;
  truncated ||= g.truncated;
  if (g.calls.length > 0) {
    for (const x of gctx.notes) notes.add(x);
    found.push(...g.calls);
    if (g.calls.some((c) => c.format === 'json') && hasProseOutside(text, [...claimed, ...g.calls.map((c) => [c.start, c.end] as [number, number])]))
      notes.add('prose around JSON');
  }
  found.sort((a, b) => a.start - b.start);
  truncated ||= attempted && unbalancedTail(text);

  let calls = plain(found);
  if (tools && calls.length > 0) {
    if (calls.some((c) => findTool(tools, c.name))) {
      const kept = calls.filter((c) => findTool(tools, c.name));
      if (kept.length < calls.length) notes.add('dropped calls to unlisted tools');
      calls = kept;
    }
    calls = coerceCalls(calls, tools, notes);
  }
  if (calls.length === 0) return { tier: 'none', format: null, calls: [], attempted, truncated, notes: [...notes] };
  return { tier: 'lenient', format: found[0]!.format, calls, attempted: true, truncated, notes: [...notes] };
}

function coerceCalls(calls: ParsedCall[], tools: ToolSchema[], notes: Set<string>): ParsedCall[] {
  return calls.map((c) => {
    const t = findTool(tools, c.name);
    if (!t) return c;
    const r = coerceArgs(c.arguments, t.parameters);
    if (r.changed > 0) notes.add('coerced types');
    return { name: c.name, arguments: r.args };
  });
}

function hasProseOutside(text: string, spans: Array<[number, number]>): boolean {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let rest = '';
  let p = 0;
  for (const [a, b] of sorted) {
    if (a > p) rest += text.slice(p, a);
    p = Math.max(p, b);
  }
  rest += text.slice(p);
  return stripEndTokens(rest.replace(/```[\w-]*/g, '')).trim() !== '';
}

/** The family's native output for these calls, as the model would emit it ('' for no calls). */
export function renderToolCalls(calls: ParsedCall[], family: Family): string {
  if (calls.length === 0) return '';
  return RENDERERS[family](calls);
}
