/**
 * OpenAI gpt-oss (harmony format; harmony.ts splits the messages):
 *   <|channel|>analysis<|message|>thinking…<|end|>
 *   <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>
 *   <|start|>assistant<|channel|>final<|message|>The answer…<|return|>
 * A call is a message whose recipient is `functions.NAME` (in the role header or after the channel); its body is
 * the JSON arguments. `analysis` without a recipient is reasoning (reasoning.ts), `final` (and `commentary`
 * without a recipient, a preamble) is content. Built-in tools (`browser.*`, `python`, `container.*`) are not
 * function calls.
 *
 * Strict (vLLM openai/harmony, llama.cpp): well-formed messages; the body of each call a JSON object; the stop
 * tokens `<|call|>`/`<|return|>` may be missing at the end of the text (servers strip them).
 * Lenient: a call body that is loose JSON or stringified, spacing in the header.
 */
import { harmonyMessages, looksHarmony } from '../harmony.ts';
import { namedArgumentCalls } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { located, readValueAt, skipWs } from '../util.ts';

export function parseGptOss(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  if (!looksHarmony(text) && !(ctx.loose && /to\s*=\s*functions\./.test(text))) return res;
  const frame: Array<[number, number]> = [];
  for (const m of harmonyMessages(text)) {
    const recipient = m.recipient;
    if (!recipient || !recipient.startsWith('functions.')) {
      // a content message: its header and end token are markup, its body is content
      frame.push([m.start, m.bodyStart]);
      if (m.end > m.bodyEnd) frame.push([m.bodyEnd, m.end]);
      continue;
    }
    res.attempted = true;
    const name = recipient.slice('functions.'.length);
    if (name === '') {
      res.ok = false;
      continue;
    }
    const r = readValueAt(text, m.bodyStart, ctx);
    if (!r.ok || skipWs(text, r.end) < m.bodyEnd) {
      res.ok = false;
      res.truncated ||= !r.ok && r.truncated && m.endToken === null;
      continue;
    }
    const calls = namedArgumentCalls(name, r.value, ctx);
    if (!calls) {
      res.ok = false;
      continue;
    }
    if (m.contentType !== null && !/json/i.test(m.contentType) && !ctx.loose) {
      res.ok = false;
      continue;
    }
    for (const c of calls) res.calls.push(located(c, m.start, m.end));
    res.spans.push([m.start, m.end]);
  }
  res.frame = frame;
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

export function renderGptOss(calls: ParsedCall[]): string {
  return calls
    .map(
      (c, i) =>
        `${i === 0 ? '' : '<|start|>assistant'}<|channel|>commentary to=functions.${c.name} <|constrain|>json<|message|>${JSON.stringify(c.arguments)}<|call|>`,
    )
    .join('');
}
