/**
 * The `content` of a parse: the visible text outside the calls (reasoning already blanked), with the markup that
 * frames messages removed — what a server returns as `message.content` next to `tool_calls`.
 */
import { END_TOKENS } from './util.ts';

/** Markup that wraps or separates messages and is never content. */
const FRAME = new RegExp(
  [
    // harmony headers (gpt-oss): [<|start|>ROLE][ to=X]<|channel|>NAME[ to=X][ TYPE]<|message|>, and end tokens
    String.raw`(?:<\|start\|>[^<]*)?<\|channel\|>[^<]*(?:<\|constrain\|>[^<]*)?<\|message\|>`,
    String.raw`<\|(?:end|call|return|start)\|>(?:assistant)?`,
    // Command-R response wrappers
    String.raw`<\|(?:START|END)_(?:RESPONSE|TEXT)\|>`,
    // stray call-section and sentence tokens left by families that also wrap content
    ...END_TOKENS.map((t) => t.replace(/[|[\]{}()*+?.\\^$]/g, '\\$&')),
  ].join('|'),
  'g',
);

function inOrder(spans: Array<[number, number]>): boolean {
  for (let i = 1; i < spans.length; i++) if (spans[i]![0] < spans[i - 1]![0]) return false;
  return true;
}

/** Remove `spans` from `visible`, then frame markup; trim. */
export function contentOf(visible: string, spans: Array<[number, number]>): string {
  let out = '';
  if (spans.length === 0) out = visible;
  else if (spans.length === 1) {
    const [a, b] = spans[0]!;
    out = a > 0 ? visible.slice(0, a) + visible.slice(Math.max(0, b)) : visible.slice(Math.max(0, b));
  } else {
    const sorted = inOrder(spans) ? spans : [...spans].sort((a, b) => a[0] - b[0]);
    let p = 0;
    for (const [a, b] of sorted) {
      if (a > p) out += visible.slice(p, a);
      p = Math.max(p, b);
    }
    out += visible.slice(p);
  }
  if (out.includes('<')) out = out.replace(FRAME, '');
  return out.trim();
}
