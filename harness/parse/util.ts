import { isPlainObject, readJsonValue, type ReadOptions, type ReadResult } from './jsonish.ts';
import type { Located, ParseCtx, ParsedCall, ReadKind, Scan } from './types.ts';

/** End-of-turn / end-of-message tokens that may trail a call in raw completions output. */
export const END_TOKENS = [
  '<|eot_id|>',
  '<|eom_id|>',
  '<|im_end|>',
  '<|end_of_text|>',
  '<|endoftext|>',
  '<|end|>',
  '</s>',
  '<eos>',
  '<end_of_turn>',
  '<turn|>',
  '<｜end▁of▁sentence｜>',
  '<|python_end|>',
  '<|eot|>',
];

/** Remove trailing whitespace and end tokens (in any order and number). */
export function stripEndTokens(text: string): string {
  let t = text.trimEnd();
  // Every end token ends with `>` (util.test.ts): a text that does not needs no search.
  while (t.charCodeAt(t.length - 1) === 62) {
    const tok = END_TOKENS.find((e) => t.endsWith(e));
    if (!tok) return t;
    t = t.slice(0, -tok.length).trimEnd();
  }
  return t;
}

/** True if only whitespace and end tokens remain from `pos`. */
export function onlyTrailer(text: string, pos: number): boolean {
  return stripEndTokens(text.slice(pos)) === '';
}

/**
 * A module's shared regex with its scan position set to `at`. A parser does not re-enter itself, so its loop can use
 * the module's regex object directly: a RegExp copy per parse costs more than a short parse.
 */
export function rewound<T extends RegExp>(re: T, at = 0): T {
  re.lastIndex = at;
  return re;
}

const FLAGGED = new WeakMap<RegExp, Map<string, RegExp>>();
/** A copy of `re` with `flag` added, made once per regex (callers set `lastIndex` before each use). */
export function flagged(re: RegExp, flag: 'g' | 'y'): RegExp {
  let byFlag = FLAGGED.get(re);
  if (!byFlag) FLAGGED.set(re, (byFlag = new Map()));
  let out = byFlag.get(flag);
  if (!out) byFlag.set(flag, (out = new RegExp(re.source, re.flags.includes(flag) ? re.flags : `${re.flags}${flag}`)));
  return out;
}

export function skipWs(text: string, pos: number): number {
  while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  return pos;
}

/** Names a model could plausibly give a tool (keeps prose like "John Smith" from passing as a call). */
export function isToolName(name: unknown): name is string {
  return typeof name === 'string' && /^[A-Za-z_][\w.\-:/]{0,127}$/.test(name);
}

/** Work allowed per parse: every reader together examines at most this many characters (linear in the input). */
export function workLimit(length: number): number {
  return 48 * length + 200_000;
}

export function newScan(text: string): Scan {
  return {
    text,
    reads: {},
    budget: { work: 0, limit: workLimit(text.length), exhausted: false },
  };
}

/** The memo for `mode`, when `text` is the scanned text itself (other strings are read without one). */
function readOpts(text: string, ctx: ParseCtx, mode: ReadKind): ReadOptions | undefined {
  const scan = ctx.scan;
  if (!scan) return undefined;
  if (scan.text === text)
    return (scan.reads[mode] ??= { memo: new Map(), budget: scan.budget, undouble: mode === 'undouble' });
  return ((scan.otherReads ??= {})[mode] ??= { memo: undefined, budget: scan.budget, undouble: mode === 'undouble' });
}

/**
 * Read a JSON value at `pos`: exact JSON in the strict tier, the loose reader in the lenient tier, and as a
 * last resort the same text read with doubled braces (`{{…}}`, from Python format strings) as single ones.
 */
export function readValueAt(text: string, pos: number, ctx: ParseCtx): ReadResult {
  if (!ctx.loose) return readJsonValue(text, pos, 'json', undefined, readOpts(text, ctx, 'json'));
  const repairs = new Set<string>();
  const r = readJsonValue(text, pos, 'loose', repairs, readOpts(text, ctx, 'loose'));
  if (r.ok) {
    for (const x of repairs) ctx.notes.add(x);
    return r;
  }
  const at = skipWs(text, pos);
  if (text.startsWith('{{', at) || text.startsWith('[{{', at)) {
    const r2 = readJsonValue(text, at, 'loose', repairs, readOpts(text, ctx, 'undouble') ?? { undouble: true });
    if (r2.ok) {
      for (const x of repairs) ctx.notes.add(x);
      ctx.notes.add('doubled braces');
      return r2;
    }
    // a too-deep undoubled read tells the caller how far the nesting runs (it skips that far)
    if (r2.deep && !r.deep) return { ...r, deep: true, pos: Math.max(r.pos, r2.pos) };
  }
  return r;
}

/** A call at a place in the text, built field by field (an object spread per call costs more than a short parse). */
export function located(c: ParsedCall, start: number, end: number): Located {
  return { name: c.name, arguments: c.arguments, start, end };
}

export function overlaps(spans: Array<[number, number]>, pos: number): boolean {
  return spans.some(([a, b]) => pos >= a && pos < b);
}

/** Regions of a text, for many "is this position taken?" questions: O(log n) per question. */
export class SpanIndex {
  /** disjoint, sorted by start */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  constructor(spans: ReadonlyArray<readonly [number, number]> = []) {
    for (let i = 0; i < spans.length; i++) this.add(spans[i]![0], spans[i]![1]);
  }

  /** The index of the last region starting at or before `pos`, or -1. */
  private before(pos: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    let ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= pos) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans;
  }

  has(pos: number): boolean {
    const i = this.before(pos);
    return i >= 0 && pos < this.ends[i]!;
  }

  add(a: number, b: number): void {
    if (b <= a) return;
    let i = this.before(a);
    // merge with the region before when they touch or overlap
    if (i >= 0 && this.ends[i]! >= a) {
      a = this.starts[i]!;
      b = Math.max(b, this.ends[i]!);
      this.starts.splice(i, 1);
      this.ends.splice(i, 1);
      i--;
    }
    let j = i + 1;
    while (j < this.starts.length && this.starts[j]! <= b) {
      b = Math.max(b, this.ends[j]!);
      j++;
    }
    this.starts.splice(i + 1, j - i - 1, a);
    this.ends.splice(i + 1, j - i - 1, b);
  }
}

export { isPlainObject };

/** The match of `re` (a sticky or global pattern) exactly at `pos`, or null. */
export function sticky(re: RegExp, text: string, pos: number): RegExpExecArray | null {
  re.lastIndex = pos;
  return re.exec(text);
}
