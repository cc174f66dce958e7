// Answer extraction and normalisation of the reference ToolHop runner (Python), replicated exactly: Python's
// whitespace set for strip(), Unicode lowercasing with Final_Sigma for lower(), and re.IGNORECASE for the tags.
import { ANSWER_IGNORECASE } from '../core/pyliteral/unicode-tables.ts';
import { pyLower, pyStrip, removeSuffix } from '../core/pyliteral/pystr.ts';

/** A chat message as the runner sees it; only role and content matter here. */
export interface MessageLike {
  role: string;
  content?: string | null;
}

// What Python's re.IGNORECASE matches for each letter of "answer" (ASCII case pairs, and U+017F LONG S for s).
const letterClass = (c: string) => `[${String.fromCodePoint(...(ANSWER_IGNORECASE[c] ?? [c.codePointAt(0)!]))}]`;
const TAG_WORD = [...'answer'].map(letterClass).join('');
const OPEN_TAG = new RegExp(`<${TAG_WORD}>`);
const CLOSE_TAG = new RegExp(`</${TAG_WORD}>`, 'g');

/**
 * extract_answer: re.search(r"<answer>\s*(.*?)\s*</answer>", text, re.I | re.S) -> group(1).strip(), else
 * text.strip(). The leftmost opening tag that has a closing tag after it wins, and the group is whatever lies
 * between it and the first closing tag, minus surrounding whitespace.
 */
export function extractAnswer(text: string): string {
  const open = OPEN_TAG.exec(text);
  if (open) {
    const from = open.index + open[0].length;
    CLOSE_TAG.lastIndex = from;
    const close = CLOSE_TAG.exec(text);
    if (close) return pyStrip(text.slice(from, close.index));
  }
  return pyStrip(text);
}

/**
 * The answer span the scorer reads (score_answer's first step): the text after the last "<answer>" up to the next
 * "</answer>" (case-sensitive), or the whole text when there is no tag. The reference reports its
 * `predicted_answer` with extract_answer (the first tag) but scores this span; toolgauge reports, scores and counts
 * votes on this one span, so a message with two tags is read one way everywhere (docs/toolhop-reference.md).
 */
export function answerSpan(text: string): string {
  let span = text;
  if (span.includes('<answer>')) span = span.split('<answer>').at(-1)!;
  if (span.includes('</answer>')) span = span.split('</answer>')[0]!;
  return span;
}

/** The answer a message gives: the scorer's span, stripped. `predicted_answer`, team votes and scoring use it. */
export function predictedAnswer(text: string): string {
  return pyStrip(answerSpan(text));
}

/**
 * answer_key: (a or "").strip().removesuffix(".0").replace(",", "").lower() — the normalised answer used to
 * compare agents' answers. (As a JS string, two lone surrogates brought together by removing a comma read as one
 * pair; Python keeps them as two code points. Real model text has no lone surrogates.)
 */
export function answerKey(a: string | null | undefined): string {
  return pyLower(removeSuffix(pyStrip(a ?? ''), '.0').replaceAll(',', ''));
}

/** last_assistant_content: the content of the last assistant message with non-empty content, else "". */
export function lastAssistantContent(messages: readonly MessageLike[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant' && m.content) return m.content;
  }
  return '';
}

/**
 * previous_tool_content: walking back from the last message to index 1 (index 0 is never looked at), the content
 * of the first tool message met after at least one assistant message has been seen; else "".
 */
export function previousToolContent(messages: readonly MessageLike[]): string {
  let seenAssistant = false;
  for (let i = messages.length - 1; i >= 1; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant') seenAssistant = true;
    else if (m.role === 'tool' && seenAssistant) return m.content ?? '';
  }
  return '';
}
