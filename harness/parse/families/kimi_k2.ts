/**
 * Moonshot Kimi-K2 (Instruct, Thinking; also K2.5):
 *   <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|>…<|tool_calls_section_end|>
 * The call id `functions.NAME:IDX` carries the name (the part after the last `.` before `:IDX`).
 *
 * Strict (vLLM kimi_k2 / llama.cpp): each call `<|tool_call_begin|>ID<|tool_call_argument_begin|>{json object}
 * <|tool_call_end|>` with ID `…NAME:DIGITS`; the section markers may be absent (llama.cpp accepts bare calls, and
 * calls right after an unclosed `<think>`, see reasoning.ts); `<|tool_calls_section_end|>` may be cut off as a
 * stop token. Prose before the section is content.
 * Lenient: marker spacing, a missing `<|tool_call_end|>` once the JSON is complete, an id without `:IDX`, loose JSON.
 */
import { namedArgumentCalls } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { located, readValueAt, skipWs } from '../util.ts';

export const KIMI = {
  sectionBegin: '<|tool_calls_section_begin|>',
  sectionEnd: '<|tool_calls_section_end|>',
  callBegin: '<|tool_call_begin|>',
  argBegin: '<|tool_call_argument_begin|>',
  callEnd: '<|tool_call_end|>',
};

function tok(word: string, loose: boolean): RegExp {
  return loose ? new RegExp(`<\\|\\s*${word}\\s*\\|>`, 'iy') : new RegExp(`<\\|${word}\\|>`, 'y');
}

/**
 * The markers' regexes, made once per mode: a parse does not re-enter itself, and each use sets `lastIndex` first
 * (compiling them per parse cost more than the parse of a short output).
 */
const MARKS = {
  strict: {
    callBegin: /<\|tool_call_begin\|>/g,
    sectionBegin: /<\|tool_calls_section_begin\|>/g,
    argBegin: tok('tool_call_argument_begin', false),
    callEnd: tok('tool_call_end', false),
    sectionEnd: tok('tool_calls_section_end', false),
  },
  loose: {
    callBegin: /<\|\s*tool_call_begin\s*\|>/gi,
    sectionBegin: /<\|\s*tool_calls_section_begin\s*\|>/gi,
    argBegin: tok('tool_call_argument_begin', true),
    callEnd: tok('tool_call_end', true),
    sectionEnd: tok('tool_calls_section_end', true),
  },
};

function at(re: RegExp, text: string, pos: number): number {
  re.lastIndex = pos;
  const m = re.exec(text);
  return m ? m[0].length : -1;
}

/** `functions.get_weather:0` → get_weather; null when the id has no name. */
export function kimiName(id: string, loose: boolean): string | null {
  const m = /^(?:[\w-]+\.)*([\w-]+):\d+$/.exec(id.trim());
  if (m) return m[1]!;
  if (!loose) return null;
  const n = /^(?:[\w-]+\.)*([\w-]+)(?::\w*)?$/.exec(id.trim());
  return n ? n[1]! : null;
}

export function parseKimiK2(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const { callBegin, argBegin, callEnd, sectionEnd, sectionBegin } = ctx.loose ? MARKS.loose : MARKS.strict;
  callBegin.lastIndex = 0;
  sectionBegin.lastIndex = 0;
  const sec = sectionBegin.exec(text);
  if (sec) res.attempted = true;
  let m: RegExpExecArray | null;
  // Strict, as vLLM: a call whose id or arguments are malformed but which is closed by its own
  // `<|tool_call_end|>` is skipped (reported in `rejected`) and the other calls are kept; a call without its
  // end marker (cut off) still fails the whole section.
  const skipClosed = (start: number): boolean => {
    if (ctx.loose) return false;
    const end = text.indexOf(KIMI.callEnd, start);
    const next = text.indexOf(KIMI.callBegin, start + KIMI.callBegin.length);
    if (end < 0 || (next >= 0 && next < end)) return false;
    const stop = end + KIMI.callEnd.length;
    res.rejected = [...(res.rejected ?? []), text.slice(start, stop)];
    res.spans.push([start, stop]);
    callBegin.lastIndex = stop;
    return true;
  };
  while ((m = callBegin.exec(text))) {
    res.attempted = true;
    const start = m.index;
    const idStart = start + m[0].length;
    // the id runs up to the argument marker
    const ai = text.indexOf('<|', idStart);
    if (ai < 0 || ai - idStart > 300) {
      res.ok = false;
      res.truncated ||= ai < 0;
      if (!ctx.loose) break;
      continue;
    }
    const argLen = at(argBegin, text, ai);
    if (argLen < 0) {
      res.ok = false;
      if (!ctx.loose) break;
      continue;
    }
    const name = kimiName(text.slice(idStart, ai), ctx.loose);
    if (!name) {
      if (skipClosed(start)) continue;
      res.ok = false;
      if (!ctx.loose) break;
      continue;
    }
    const r = readValueAt(text, ai + argLen, ctx);
    if (!r.ok) {
      if (!r.truncated && skipClosed(start)) continue;
      res.ok = false;
      res.truncated ||= r.truncated;
      if (!ctx.loose) break;
      continue;
    }
    const calls = namedArgumentCalls(name, r.value, ctx);
    if (!calls) {
      res.ok = false;
      if (!ctx.loose) break;
      continue;
    }
    let end = skipWs(text, r.end);
    const ce = at(callEnd, text, end);
    if (ce >= 0) end += ce;
    else if (!ctx.loose && !/^\s*$/.test(text.slice(r.end)) && at(tok('tool_call_begin', false), text, end) < 0) {
      // the call-end marker may only be missing at the end of the text or before the next call (llama.cpp)
      res.ok = false;
      break;
    } else {
      if (ctx.loose && ce < 0) ctx.notes.add('missing closing tag');
      end = r.end;
    }
    const se = at(sectionEnd, text, skipWs(text, end));
    if (se >= 0) end = skipWs(text, end) + se;
    const from = sec && sec.index < start && res.calls.length === 0 ? sec.index : start;
    for (const c of calls) res.calls.push(located(c, from, end));
    res.spans.push([from, end]);
    callBegin.lastIndex = end;
  }
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

export function renderKimiK2(calls: ParsedCall[]): string {
  const body = calls
    .map(
      (c, i) =>
        `${KIMI.callBegin}functions.${c.name}:${i}${KIMI.argBegin}${JSON.stringify(c.arguments)}${KIMI.callEnd}`,
    )
    .join('');
  return `${KIMI.sectionBegin}${body}${KIMI.sectionEnd}`;
}
