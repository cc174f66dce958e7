/**
 * OpenAI harmony messages (gpt-oss). After the generation prompt `<|start|>assistant` a model writes messages
 *
 *   [<|start|>ROLE][ to=RECIPIENT]<|channel|>CHANNEL[ to=RECIPIENT][ CONTENT_TYPE | <|constrain|>TYPE]<|message|>BODY END
 *
 * where END is `<|end|>`, `<|call|>` (a tool call) or `<|return|>` (the final answer) — the last two are stop
 * tokens, so a server may cut them off: the end of the text ends the last message too. The first message has
 * no `<|start|>ROLE` (the prompt wrote it); a recipient may sit in the role header or after the channel.
 * This module only splits the text into messages; gpt_oss.ts turns them into calls, reasoning.ts uses the
 * `analysis` channel.
 */

export interface HarmonyMessage {
  /** where the message starts (its `<|start|>`, or its `<|channel|>` for the first message) */
  start: number;
  /** where the header ends and the body begins (just after `<|message|>`) */
  bodyStart: number;
  /** where the body ends (the end token, or the end of the text) */
  bodyEnd: number;
  /** just after the end token (= bodyEnd when the text ended) */
  end: number;
  channel: string;
  recipient: string | null;
  contentType: string | null;
  /** the end token, or null when the text ended inside the message */
  endToken: '<|end|>' | '<|call|>' | '<|return|>' | null;
  /** the header itself, for checks */
  header: string;
}

const START = '<|start|>';
const CHANNEL = '<|channel|>';
const MESSAGE = '<|message|>';
const ENDS = ['<|end|>', '<|call|>', '<|return|>'] as const;

/** True when the text carries harmony markup at all (cheap pre-check). */
export function looksHarmony(text: string): boolean {
  return text.includes(CHANNEL) && text.includes(MESSAGE);
}

function parseHeader(header: string): { channel: string; recipient: string | null; contentType: string | null } | null {
  // role part (before <|channel|>) may hold " to=RECIPIENT"; channel part: NAME [to=RECIPIENT] [TYPE] [<|constrain|>TYPE]
  const ci = header.indexOf(CHANNEL);
  if (ci < 0) return null;
  const rolePart = header.slice(0, ci);
  const chanPart = header.slice(ci + CHANNEL.length);
  let recipient: string | null = null;
  const rm = /\bto=([^\s<]+)/.exec(rolePart);
  if (rm) recipient = rm[1]!;
  const cm = /^\s*([A-Za-z_][\w-]*)/.exec(chanPart);
  if (!cm) return null;
  const channel = cm[1]!;
  let rest = chanPart.slice(cm[0].length);
  const rm2 = /^\s*to=([^\s<]+)/.exec(rest);
  if (rm2) {
    recipient ??= rm2[1]!;
    rest = rest.slice(rm2[0].length);
  }
  let contentType: string | null = null;
  const constrained = /<\|constrain\|>\s*([^\s<]+)/.exec(rest);
  if (constrained) contentType = constrained[1]!;
  else {
    const bare = /^\s*([^\s<]+)\s*$/.exec(rest);
    if (bare) contentType = bare[1]!;
  }
  return { channel, recipient, contentType };
}

/**
 * The messages of a harmony text, in order. Text outside any message (before the first header, between an end
 * token and the next `<|start|>`) is not part of a message. Linear in the text.
 */
export function harmonyMessages(text: string): HarmonyMessage[] {
  const out: HarmonyMessage[] = [];
  const next = forwardFinder(text);
  let p = 0;
  while (p < text.length) {
    const ci = next(CHANNEL, p);
    if (ci < 0) break;
    const mi = next(MESSAGE, ci);
    if (mi < 0) break; // no body anywhere after this: no more messages
    const nextStart = next(START, ci);
    if (nextStart >= 0 && nextStart < mi) {
      // a header without a body: go on from the next message's start
      p = nextStart;
      continue;
    }
    // the header starts at the last <|start|> between p and the channel, else (first message) at its role/recipient
    const si = text.slice(p, ci).lastIndexOf(START);
    const start = si >= 0 ? p + si : out.length === 0 ? headerStart(text, p, ci) : ci;
    const header = text.slice(start, mi);
    const parsed = parseHeader(header);
    const bodyStart = mi + MESSAGE.length;
    // the body ends at the first end token or the next <|start|>
    let bodyEnd = text.length;
    let endToken: HarmonyMessage['endToken'] = null;
    let end = text.length;
    const nextSt = next(START, bodyStart);
    for (const tok of ENDS) {
      const e = next(tok, bodyStart);
      if (e >= 0 && e < bodyEnd && (nextSt < 0 || e <= nextSt)) {
        bodyEnd = e;
        endToken = tok;
        end = e + tok.length;
      }
    }
    if (endToken === null && nextSt >= 0) {
      bodyEnd = nextSt;
      end = nextSt;
    }
    if (parsed) out.push({ start, bodyStart, bodyEnd, end, endToken, header, ...parsed });
    p = Math.max(end, bodyStart);
  }
  return out;
}

/**
 * indexOf for positions that never decrease: each token's last answer is reused while still ahead, so the
 * scans of one text add up to a linear amount of work.
 */
export function forwardFinder(text: string): (token: string, from: number) => number {
  const last = new Map<string, number>();
  return (token, from) => {
    const seen = last.get(token);
    if (seen !== undefined && (seen === -1 || seen >= from)) return seen;
    const at = text.indexOf(token, from);
    last.set(token, at);
    return at;
  };
}

/** The first message's header begins at its role marker when the text repeats it (`assistant<|channel|>`), or at `to=`. */
function headerStart(text: string, from: number, channelAt: number): number {
  const before = text.slice(from, channelAt);
  const m = /(?:assistant)?(?:\s*to=[^\s<]+)?\s*$/.exec(before);
  return m ? channelAt - m[0].length : channelAt;
}
