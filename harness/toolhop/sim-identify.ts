import type { ChatMessage, OpenAITool } from '../core/chat.ts';
import type { ToolhopRow } from './row.ts';
import { pushTo } from '../core/push-to.ts';

/**
 * Which ToolHop row a chat request is about, read from the request's content alone, so any runner is recognised:
 * every turn, the final-answer call (whose user message quotes the task, then continues with the observations),
 * a team member's request, with or without tools. Pure.
 *
 * The question is found where the task writes it (after `Question: `, the reference's and toolgauge's wording),
 * else anywhere in a user message; a match must end its line (the text goes on, if at all, on the next line), and the
 * longest known question wins (one question may be the start of another). Rows asking the same question are told
 * apart by the tools the request offers or names.
 */
export interface QuestionIndex {
  /** Rows by the first characters of their trimmed question. */
  byPrefix: Map<string, Array<{ id: string; question: string; row: ToolhopRow }>>;
  all: Array<{ id: string; question: string; row: ToolhopRow }>;
}

const PREFIX = 16;
const MARKER = 'Question: ';

export function questionIndex(rows: Iterable<[string, ToolhopRow]>): QuestionIndex {
  const byPrefix: QuestionIndex['byPrefix'] = new Map();
  const all: QuestionIndex['all'] = [];
  for (const [id, row] of rows) {
    const question = row.question.trim();
    if (!question) continue;
    const entry = { id, question, row };
    all.push(entry);
    const key = question.slice(0, PREFIX);
    pushTo(byPrefix, key, entry);
  }
  return { byPrefix, all };
}

export interface IdentifiableRequest {
  messages: ChatMessage[];
  tools?: OpenAITool[];
}

/** The id of the row the request asks about, or undefined when it names no known question. */
export function identifyRow(index: QuestionIndex, body: IdentifiableRequest): string | undefined {
  const users = body.messages.filter((m) => m.role === 'user').map((m) => textOf(m.content));
  for (const text of users) {
    const found = atMarkers(index, text);
    if (found.length) return pick(found, body);
  }
  for (const text of users) {
    const found = anywhere(index, text);
    if (found.length) return pick(found, body);
  }
  return undefined;
}

type Entry = QuestionIndex['all'][number];

/** Known questions written right after a `Question: ` marker. */
function atMarkers(index: QuestionIndex, text: string): Entry[] {
  const out: Entry[] = [];
  for (let at = text.indexOf(MARKER); at >= 0; at = text.indexOf(MARKER, at + 1)) {
    let start = at + MARKER.length;
    while (start < text.length && /\s/.test(text[start]!)) start++;
    for (const e of index.byPrefix.get(text.slice(start, start + PREFIX)) ?? []) {
      if (text.startsWith(e.question, start) && endsAtBoundary(text, start + e.question.length)) out.push(e);
    }
  }
  return out;
}

/** Known questions anywhere in the text, for a runner that words its task otherwise. */
function anywhere(index: QuestionIndex, text: string): Entry[] {
  const out: Entry[] = [];
  for (const e of index.all) {
    for (let at = text.indexOf(e.question); at >= 0; at = text.indexOf(e.question, at + 1)) {
      const before = at === 0 || /\s/.test(text[at - 1]!);
      if (before && endsAtBoundary(text, at + e.question.length)) {
        out.push(e);
        break;
      }
    }
  }
  return out;
}

/** The question ends its line: only spaces, then a line break or the end of the text. */
function endsAtBoundary(text: string, end: number): boolean {
  LINE_END.lastIndex = end;
  return LINE_END.test(text);
}
const LINE_END = /[ \t\r]*(?:\n|$)/y;

/** The longest question; among rows asking it, the one whose tools the request offers or names. */
function pick(found: Entry[], body: IdentifiableRequest): string {
  const longest = Math.max(...found.map((e) => e.question.length));
  const candidates = [...new Map(found.filter((e) => e.question.length === longest).map((e) => [e.id, e])).values()];
  if (candidates.length === 1) return candidates[0]!.id;
  const offered = (body.tools ?? []).map((t) => t.function.name);
  const text = body.messages.map((m) => textOf(m.content)).join('\n');
  const named = (name: string) =>
    offered.some((o) => o === name || o.startsWith(`${name}__`)) || (!offered.length && text.includes(name));
  return (candidates.find((e) => Object.values(e.row.tools).every((t) => named(t.name))) ?? candidates[0]!).id;
}

/** A message's text; content sent as parts (`[{type: 'text', text}]`) is joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p: unknown) =>
        typeof p === 'object' && p !== null && 'text' in p ? String((p as { text: unknown }).text) : '',
      )
      .join('');
  return '';
}
