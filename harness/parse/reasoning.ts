/**
 * The thinking channel, kept apart from content and calls (what vLLM's and llama.cpp's reasoning parsers do).
 *
 * Recognised, whatever the tool-call family (the markers do not collide):
 *   <think>…</think> (DeepSeek-R1, Qwen3, GLM, MiniMax, Kimi, LFM2, Nemotron, Granite, Reka, …), <thinking>…</thinking>,
 *   <seed:think>…</seed:think> (Seed-OSS), [THINK]…[/THINK] (Magistral/Ministral), <|START_THINKING|>…<|END_THINKING|>
 *   (Command-R7B/A), <|inner_prefix|>…<|inner_suffix|> (Apertus), <|channel>thought…<channel|> (Gemma 4),
 *   ◁think▷…◁/think▷ (Kimi-VL), and harmony `analysis` messages without a recipient (gpt-oss).
 *
 * Rules:
 *   - a closed block is reasoning;
 *   - a closer with no opener before it ends reasoning that the prompt opened ("forced-open" templates end the
 *     generation prompt with `<think>`): everything before it is reasoning;
 *   - an opener that is never closed makes the rest reasoning (thinking cut off), except that Kimi-K2's
 *     tool-call section marker ends it (llama.cpp accepts Kimi calls inside an unclosed think block);
 *   - call markup inside reasoning is not a call: the reasoning is blanked out before any call parser runs.
 */
import { forwardFinder, harmonyMessages, looksHarmony } from './harmony.ts';

export interface ReasoningSplit {
  /** the text with every reasoning region replaced by spaces (same length: positions are shared with the input) */
  visible: string;
  /** the reasoning texts, trimmed, joined with a blank line */
  reasoning: string;
  /** the blanked regions, markers included */
  regions: Array<[number, number]>;
}

interface Pair {
  open: string;
  close: string;
  /** the close may appear without an open (forced-open prompts) */
  forcedOpen: boolean;
}

const PAIRS: Pair[] = [
  { open: '<think>', close: '</think>', forcedOpen: true },
  { open: '<thinking>', close: '</thinking>', forcedOpen: false },
  { open: '<seed:think>', close: '</seed:think>', forcedOpen: true },
  { open: '[THINK]', close: '[/THINK]', forcedOpen: true },
  { open: '<|START_THINKING|>', close: '<|END_THINKING|>', forcedOpen: false },
  { open: '<|inner_prefix|>', close: '<|inner_suffix|>', forcedOpen: false },
  { open: '<|channel>thought', close: '<channel|>', forcedOpen: true },
  { open: '◁think▷', close: '◁/think▷', forcedOpen: false },
];

/** Markers that end an unclosed think block (Kimi-K2 writes its calls there). */
const SECTION_ENDS_THINK = ['<|tool_calls_section_begin|>', '<|tool_call_begin|>'];

/** A necessary condition for any reasoning marker (one scan instead of one per marker). */
const MAYBE_REASONING = /think|THINK|<\|inner_prefix\|>|<channel\|>|<\|channel\|>/;

export function splitReasoning(text: string): ReasoningSplit {
  if (!MAYBE_REASONING.test(text)) return { visible: text, reasoning: '', regions: [] };
  return splitMarked(text);
}

/**
 * The split of a text that may hold reasoning markers. Apart from splitReasoning, which every parse calls: the
 * optimizing compiler compiles that small test on its own, and this larger function only when such texts are common.
 */
function splitMarked(text: string): ReasoningSplit {
  const regions: Array<[number, number, string]> = []; // start, end, reasoning text
  const next = forwardFinder(text);
  for (const pair of PAIRS) {
    if (!text.includes(pair.close) && !text.includes(pair.open)) continue;
    let p = 0;
    let first = true;
    for (;;) {
      const o = next(pair.open, p);
      const c = next(pair.close, p);
      if (o < 0 && c < 0) break;
      if (c >= 0 && (o < 0 || c < o)) {
        // a closer before any opener: forced-open reasoning from the start (only for the first block)
        if (first && pair.forcedOpen) regions.push([0, c + pair.close.length, text.slice(0, c)]);
        p = c + pair.close.length;
        first = false;
        continue;
      }
      first = false;
      const bodyStart = o + pair.open.length;
      if (c >= 0) {
        regions.push([o, c + pair.close.length, text.slice(bodyStart, c)]);
        p = c + pair.close.length;
        continue;
      }
      // never closed: reasoning to the end, or to a Kimi section marker
      let end = text.length;
      for (const m of SECTION_ENDS_THINK) {
        const k = next(m, bodyStart);
        if (k >= 0 && k < end) end = k;
      }
      regions.push([o, end, text.slice(bodyStart, end)]);
      break;
    }
  }

  if (looksHarmony(text)) {
    for (const m of harmonyMessages(text)) {
      if (m.channel === 'analysis' && m.recipient === null)
        regions.push([m.start, m.end, text.slice(m.bodyStart, m.bodyEnd)]);
    }
  }

  if (regions.length === 0) return { visible: text, reasoning: '', regions: [] };
  // Overlapping regions (a marker of one style inside another's block) merge into the outermost.
  regions.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Array<[number, number, string]> = [];
  for (const r of regions) {
    const last = merged[merged.length - 1];
    if (last && r[0] < last[1]) {
      if (r[1] > last[1]) last[1] = r[1];
      continue;
    }
    merged.push([r[0], r[1], r[2]]);
  }
  // indexed loops, not map/filter: an empty and a filled result of `map` are arrays of different kinds, and the
  // compiled function met both
  let visible = '';
  let reasoning = '';
  let p = 0;
  const spans: Array<[number, number]> = [];
  for (let k = 0; k < merged.length; k++) {
    const [a, b, body] = merged[k]!;
    visible += text.slice(p, a) + ' '.repeat(b - a);
    p = b;
    spans.push([a, b]);
    const t = body.trim();
    if (t !== '') reasoning = reasoning === '' ? t : `${reasoning}\n\n${t}`;
  }
  visible += text.slice(p);
  return { visible, reasoning, regions: spans };
}
