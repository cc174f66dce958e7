import type { ChatMessage } from '../core/chat.ts';
import { redactCut } from '../core/redact.ts';

/**
 * A readable transcript of one agent run for people (the Vitest UI, failure messages): the question, each tool
 * call with its arguments and result, and the final answer — long texts cut so one verbose turn cannot drown the
 * rest. Pure but for the registered secrets, which are redacted.
 */
export interface TranscriptInput {
  title: string;
  messages: readonly ChatMessage[];
  /** Extra lines at the end (gold vs predicted, the verdict). */
  footer?: string[];
  /** Characters kept per message or tool result. */
  cap?: number;
}

export function renderTranscript(t: TranscriptInput): string {
  const cap = t.cap ?? 600;
  // Redacted before the cut, so no secret's beginning is left at it (core/redact.ts).
  const cut = (s: string) => redactCut(s, cap, (length) => `… [${length - cap} more characters]`);
  const names = new Map<string, string>();
  const lines = [t.title, ''];
  for (const m of t.messages) {
    if (m.role === 'system') continue;
    if (m.role === 'user') lines.push(`USER: ${cut(m.content ?? '')}`);
    else if (m.role === 'assistant') {
      if (m.content) lines.push(`ASSISTANT: ${cut(m.content)}`);
      for (const c of m.tool_calls ?? []) {
        names.set(c.id, c.function.name);
        lines.push(`  CALL ${c.function.name}(${cut(c.function.arguments)})`);
      }
    } else if (m.role === 'tool') {
      lines.push(`  RESULT ${names.get(m.tool_call_id ?? '') ?? ''}: ${cut(m.content ?? '')}`);
    }
  }
  if (t.footer?.length) lines.push('', ...t.footer);
  return lines.join('\n');
}
