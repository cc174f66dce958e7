/**
 * Tool-call parsers for every model family, in two tiers, returning all calls plus the content and the
 * reasoning around them.
 *
 * - Reasoning first (reasoning.ts): thinking blocks are split off and blanked, so call markup inside them is
 *   never a call; the result carries them as `reasoning`.
 * - strict: what the model's own serving framework parser accepts (see each file in ./families/ and the table
 *   in README.md). With `format: 'auto'` every family is tried in AUTO_ORDER (distinctive markers first, bare
 *   formats last) and the first family that parses cleanly wins.
 * - lenient (default): strict first; if it finds nothing, the family parsers again in loose mode (sloppy
 *   markers, missing closing tags, loose JSON, alias keys…) merged with the generic rescue (generic.ts).
 *   With `tools`, argument types are coerced by schema, and — only for rescued calls, only when at least one
 *   rescued call names a listed tool — rescued calls naming unlisted tools are dropped. Calls the strict tier
 *   parsed keep their names (a well-formed call to an unknown tool is a model decision, not a parse issue).
 *
 * Neither tier invents calls: prose without a call and truncated calls give no call. Every parse is linear in
 * the input: readers share one work budget (util.ts workLimit); if a hostile input exhausts it the result says
 * so in `notes` instead of taking longer. `parseToolCalls` never throws.
 */
import { coerceArgs } from './coerce.ts';
import { contentOf } from './content.ts';
import { detectAttempt, unbalancedTail } from './detect.ts';
import {
  AUTO_ORDER,
  FAMILY_BIT,
  GATES,
  PARSERS,
  RENDERERS,
  STRICT_GATES,
  strictGateMask,
} from './families/registry.ts';
import { genericScan } from './generic.ts';
import { findTool } from './normalize.ts';
import { type ReasoningSplit, splitReasoning } from './reasoning.ts';
import {
  FAMILIES,
  type Family,
  type FamilyResult,
  type Located,
  type ParseCtx,
  type ParseOptions,
  type ParseResult,
  type ParsedCall,
  type Scan,
  type ToolSchema,
} from './types.ts';
import { newScan, SpanIndex, stripEndTokens } from './util.ts';

export { FAMILIES, AUTO_ORDER };
export type { Family, ParsedCall, ParseOptions, ParseResult, ToolSchema };
export { familyOfTemplate } from './template.ts';
export { splitReasoning } from './reasoning.ts';
export { STRICT_TIER, type StrictTierDoc } from './families/registry.ts';

/** Note added when a hostile input ran out of the work budget (the parse stopped early instead of hanging). */
export const BUDGET_NOTE = 'input too complex: scan stopped at the work budget (linear bound)';
export const REASONING_CALL_NOTE = 'call markup inside reasoning (not a call)';

function plain(calls: Located[]): ParsedCall[] {
  return calls.map((c) => ({ name: c.name, arguments: c.arguments }));
}

export function parseToolCalls(text: string, opts: ParseOptions = {}): ParseResult {
  const input = typeof text === 'string' ? text : String(text);
  try {
    return parseInner(input, opts);
  } catch {
    // Defensive: the parsers are written not to throw; a bug must not take a benchmark run down.
    return {
      tier: 'none',
      format: null,
      calls: [],
      attempted: false,
      truncated: false,
      notes: ['parser error'],
      content: input.trim(),
      reasoning: '',
      rejected: [],
    };
  }
}

interface Finish {
  tier: ParseResult['tier'];
  format: ParseResult['format'];
  calls: ParsedCall[];
  attempted: boolean;
  truncated: boolean;
  notes: Iterable<string>;
  spans: Array<[number, number]>;
  rejected: string[];
}

/**
 * The strict pass keeps no notes: its families share one context whose note set is never read (cleared per parse
 * so it stays small). A parse does not re-enter itself.
 */
const STRICT_NOTES = new Set<string>();
const NO_SPANS: Array<[number, number]> = [];

/** A family with its parser and gates, looked up once (the parse loops index arrays instead of records by name). */
interface Entry {
  family: Family;
  bit: number;
  parse: (text: string, ctx: ParseCtx) => FamilyResult;
  strictGate: (text: string) => boolean;
  looseGate: (lower: string) => boolean;
}
const ENTRY = Object.fromEntries(
  FAMILIES.map((f) => [
    f,
    { family: f, bit: FAMILY_BIT[f], parse: PARSERS[f], strictGate: STRICT_GATES[f], looseGate: GATES[f] },
  ]),
) as Record<Family, Entry>;
const AUTO_ENTRIES: readonly Entry[] = AUTO_ORDER.map((f) => ENTRY[f]);

function finish(f: Finish, split: ReasoningSplit, scan: Scan): ParseResult {
  let notes: string[];
  if (Array.isArray(f.notes) && f.notes.length === 0) {
    notes = [];
    if (split.reasoning !== '' && detectAttempt(split.reasoning)) notes.push(REASONING_CALL_NOTE);
    if (scan.budget.exhausted) notes.push(BUDGET_NOTE);
  } else {
    const all = new Set(f.notes);
    if (split.reasoning !== '' && detectAttempt(split.reasoning)) all.add(REASONING_CALL_NOTE);
    if (scan.budget.exhausted) all.add(BUDGET_NOTE);
    notes = [...all];
  }
  const regions = split.regions;
  return {
    tier: f.tier,
    format: f.format,
    calls: f.calls,
    attempted: f.attempted,
    truncated: f.truncated,
    notes,
    content: contentOf(
      split.visible,
      regions.length === 0 ? f.spans : f.spans.length === 0 ? regions : [...f.spans, ...regions],
    ),
    reasoning: split.reasoning,
    rejected: f.rejected,
  };
}

function parseInner(
  text: string,
  opts: ParseOptions,
  out?: { scan?: Scan },
  looseOnly = false,
  shortcut = true,
): ParseResult {
  const tier = opts.tier ?? 'lenient';
  const format = opts.format ?? 'auto';
  const entries = format === 'auto' ? AUTO_ENTRIES : [ENTRY[format]];
  const tools = opts.tools;
  const explicit = format !== 'auto';
  const split = splitReasoning(text);
  const visible = split.visible;
  const scan = newScan(visible);
  if (out) out.scan = scan;
  // Gates are cheap necessary conditions (families/registry.ts): a family whose gate fails is not run. The strict
  // loop usually ends at the first family, so the lower-cased text and the loose gates are computed only if needed.
  let lowered: string | undefined;
  let attempted = false;
  let truncated = false;
  let strictCtx: ParseCtx | undefined;

  // One scan says which families' strict gates can pass at all; only those gates are then tested.
  const mask = looseOnly ? -1 : strictGateMask(visible);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (looseOnly ? !e.looseGate((lowered ??= visible.toLowerCase())) : (mask & e.bit) === 0 || !e.strictGate(visible))
      continue;
    if (strictCtx === undefined) {
      if (STRICT_NOTES.size > 0) STRICT_NOTES.clear();
      strictCtx = { loose: false, notes: STRICT_NOTES, tools, explicit, scan };
    }
    const f = e.family;
    const r = e.parse(visible, strictCtx);
    attempted ||= r.attempted;
    truncated ||= r.truncated;
    if (r.ok && r.calls.length > 0) {
      const calls = plain(r.calls);
      const spans = r.frame === undefined || r.frame.length === 0 ? r.spans : [...r.spans, ...r.frame];
      if (tier === 'lenient' && tools) {
        const notes = new Set<string>();
        const coerced = coerceCalls(calls, tools, notes);
        if (notes.size > 0)
          return finish(
            {
              tier: 'lenient',
              format: f,
              calls: coerced,
              attempted: true,
              truncated,
              notes,
              spans,
              rejected: r.rejected ?? [],
            },
            split,
            scan,
          );
      }
      return finish(
        { tier: 'strict', format: f, calls, attempted: true, truncated, notes: [], spans, rejected: r.rejected ?? [] },
        split,
        scan,
      );
    }
  }
  // Nothing parsed: whether a call was tried at all, independent of the families.
  attempted ||= detectAttempt(visible);
  if (tier === 'strict') {
    truncated ||= attempted && unbalancedTail(visible);
    return finish(
      { tier: 'none', format: null, calls: [], attempted, truncated, notes: [], spans: NO_SPANS, rejected: [] },
      split,
      scan,
    );
  }

  return lenientPass(visible, entries, { tools, explicit, scan, split, attempted, truncated, lowered, shortcut });
}

interface LenientStart {
  tools: ToolSchema[] | undefined;
  explicit: boolean;
  scan: Scan;
  split: ReasoningSplit;
  /** what the strict pass saw */
  attempted: boolean;
  truncated: boolean;
  lowered: string | undefined;
  /** the return without the generic rescue when it cannot find anything (off only in tests) */
  shortcut: boolean;
}

/**
 * The lenient tier after the strict pass found nothing. A function of its own: the optimizing compiler compiles it
 * (and recompiles it after a deoptimization) apart from the strict pass, which most outputs end in.
 */
function lenientPass(visible: string, entries: readonly Entry[], o: LenientStart): ParseResult {
  const { tools, explicit, scan, split } = o;
  let { attempted, truncated } = o;
  // Plain loops instead of spreads, closures and iterators throughout: this function runs cold in a short-lived
  // process, and arrays of different element kinds through a spread made the optimizing compiler throw its code away
  // and compile the whole function again, several times per run.
  const notes = new Set<string>();
  const rejected: string[] = [];
  const found: Array<Located & { format: Family | 'json' | 'python' }> = [];
  const claimed: Array<[number, number]> = [];
  const taken = new SpanIndex();
  const frame: Array<[number, number]> = [];
  const lower = o.lowered ?? visible.toLowerCase();
  let ranFamily = false;
  // one context for the loose family passes: its notes are taken only from a family that found calls, then cleared
  const ctx: ParseCtx = { loose: true, notes: new Set(), tools, explicit, scan };
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (!e.looseGate(lower)) continue;
    ranFamily = true;
    if (ctx.notes.size > 0) ctx.notes.clear();
    const f = e.family;
    const r = e.parse(visible, ctx);
    attempted ||= r.attempted;
    truncated ||= r.truncated;
    // the calls at places no earlier family claimed, all decided before this family's spans are taken
    let fresh = 0;
    for (let k = 0; k < r.calls.length; k++) {
      const c = r.calls[k]!;
      if (taken.has(c.start)) continue;
      found.push({ name: c.name, arguments: c.arguments, start: c.start, end: c.end, format: f });
      fresh++;
    }
    if (fresh === 0) continue;
    addAll(notes, ctx.notes);
    for (let k = 0; k < r.spans.length; k++) claimed.push(r.spans[k]!);
    for (let k = 0; k < r.spans.length; k++) taken.add(r.spans[k]![0], r.spans[k]![1]);
    if (r.frame !== undefined) for (let k = 0; k < r.frame.length; k++) frame.push(r.frame[k]!);
    if (r.rejected !== undefined) for (let k = 0; k < r.rejected.length; k++) rejected.push(r.rejected[k]!);
  }
  // No family ran and nothing can open a call the generic rescue reads (a bracket or a parenthesis): it would find
  // nothing, and without a bracket the text has no unbalanced tail. The result is the strict pass's.
  if (o.shortcut && !ranFamily && !OPENERS.test(visible))
    return finish(
      { tier: 'none', format: null, calls: [], attempted, truncated, notes: [], spans: NO_SPANS, rejected: [] },
      split,
      scan,
    );
  const gctx: ParseCtx = { loose: true, notes: new Set(), tools, explicit, scan };
  const g = genericScan(visible, claimed, gctx);
  attempted ||= g.attempted;
  truncated ||= g.truncated;
  for (let k = 0; k < g.rejected.length; k++) rejected.push(g.rejected[k]!);
  const spans: Array<[number, number]> = [];
  for (let k = 0; k < claimed.length; k++) spans.push(claimed[k]!);
  for (let k = 0; k < frame.length; k++) spans.push(frame[k]!);
  if (g.calls.length > 0) {
    let json = false;
    const outside: Array<[number, number]> = claimed.slice();
    for (let k = 0; k < g.calls.length; k++) {
      const c = g.calls[k]!;
      spans.push([c.start, c.end]);
      outside.push([c.start, c.end]);
      found.push(c);
      if (c.format === 'json') json = true;
    }
    addAll(notes, gctx.notes);
    if (json && hasProseOutside(visible, outside)) notes.add('prose around JSON');
  }
  truncated ||= attempted && unbalancedTail(visible);
  if (rejected.length > 0) notes.add('skipped malformed calls');
  // `found` is tested before it is mapped: an empty and a filled result of `map` are arrays of different kinds
  if (found.length === 0)
    return finish(
      { tier: 'none', format: null, calls: [], attempted, truncated, notes, spans: [], rejected },
      split,
      scan,
    );
  found.sort(byStart);
  let calls = plain(found);
  // with tools a call is dropped only when another names a listed tool, so some call always remains
  if (tools) calls = keepListedTools(calls, tools, notes);
  return finish(
    { tier: 'lenient', format: found[0]!.format, calls, attempted: true, truncated, notes, spans, rejected },
    split,
    scan,
  );
}

/** What the generic rescue needs to find anything: a bracket (JSON, a Python list) or a parenthesis (a call). */
const OPENERS = /[[{(]/;

/** A set's iteration, kept out of lenientPass: inlined there it made that function's compiled graph larger. */
function addAll(into: Set<string>, from: Set<string>): void {
  for (const x of from) into.add(x);
}

function byStart(a: Located, b: Located): number {
  return a.start - b.start;
}

/**
 * With tools: rescued calls naming unlisted tools are dropped when at least one names a listed tool, and arguments are
 * coerced by schema.
 */
function keepListedTools(calls: ParsedCall[], tools: ToolSchema[], notes: Set<string>): ParsedCall[] {
  if (calls.some((c) => findTool(tools, c.name))) {
    const kept = calls.filter((c) => findTool(tools, c.name));
    if (kept.length < calls.length) notes.add('dropped calls to unlisted tools');
    calls = kept;
  }
  return coerceCalls(calls, tools, notes);
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

/**
 * For tests: the parse without the lenient pass's shortcut (the generic rescue runs on every text no family claimed)
 * — what the shortcut must never change.
 */
export function parseWithoutShortcut(text: string, opts: ParseOptions = {}): ParseResult {
  return parseInner(text, opts, undefined, false, false);
}

/**
 * For tests: the parse with the strict pass gated by the loose gates only (every family whose loose gate passes
 * runs) — what the strict pass's sharper gates must never change.
 */
export function parseLooseGated(text: string, opts: ParseOptions = {}): ParseResult {
  return parseInner(text, opts, undefined, true);
}

/** For tests and the bench: a parse plus the work its readers used (the linear bound is `limit`). */
export function parseWork(text: string, opts: ParseOptions = {}): { result: ParseResult; work: number; limit: number } {
  const out: { scan?: Scan } = {};
  const result = parseInner(text, opts, out);
  return { result, work: out.scan?.budget.work ?? 0, limit: out.scan?.budget.limit ?? 0 };
}
