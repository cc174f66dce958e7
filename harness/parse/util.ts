import { isPlainObject, readJsonValue, type ReadResult } from './jsonish.ts';
import type { ParseCtx } from './types.ts';

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
  for (;;) {
    const tok = END_TOKENS.find((e) => t.endsWith(e));
    if (!tok) return t;
    t = t.slice(0, -tok.length).trimEnd();
  }
}

/** True if only whitespace and end tokens remain from `pos`. */
export function onlyTrailer(text: string, pos: number): boolean {
  return stripEndTokens(text.slice(pos)) === '';
}

export function skipWs(text: string, pos: number): number {
  while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  return pos;
}

/** Names a model could plausibly give a tool (keeps prose like "John Smith" from passing as a call). */
export function isToolName(name: unknown): name is string {
  return typeof name === 'string' && /^[A-Za-z_][\w.\-:/]{0,127}$/.test(name);
}

/**
 * Read a JSON value at `pos`: exact JSON in the strict tier, the loose reader in the lenient tier, and as a
 * last resort the same text with doubled braces (`{{…}}`, from Python format strings) collapsed.
 * `limit` bounds the doubled-brace retry (e.g. the closing marker of the block).
 */
export function readValueAt(text: string, pos: number, ctx: ParseCtx, limit = text.length): ReadResult {
  if (!ctx.loose) return readJsonValue(text, pos, 'json');
  const repairs = new Set<string>();
  const r = readJsonValue(text, pos, 'loose', repairs);
  if (r.ok) {
    for (const x of repairs) ctx.notes.add(x);
    return r;
  }
  const at = skipWs(text, pos);
  if (text.startsWith('{{', at) || text.startsWith('[{{', at)) {
    const region = text.slice(at, limit);
    const undoubled = region.replace(/\{\{/g, '{').replace(/\}\}/g, '}');
    const r2 = readJsonValue(undoubled, 0, 'loose', repairs);
    if (r2.ok) {
      for (const x of repairs) ctx.notes.add(x);
      ctx.notes.add('doubled braces');
      // Map the end back: count how far into `region` the undoubled prefix reaches.
      return { ok: true, value: r2.value, end: at + mapUndoubledEnd(region, r2.end) };
    }
  }
  return r;
}

function mapUndoubledEnd(region: string, endInUndoubled: number): number {
  let i = 0;
  let j = 0;
  while (j < endInUndoubled && i < region.length) {
    if ((region.startsWith('{{', i) || region.startsWith('}}', i))) i += 2;
    else i += 1;
    j++;
  }
  return i;
}

export function overlaps(spans: Array<[number, number]>, pos: number): boolean {
  return spans.some(([a, b]) => pos >= a && pos < b);
}

export { isPlainObject };
