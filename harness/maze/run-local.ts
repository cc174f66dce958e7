// In-memory driver: policy → execute its calls in order → append tool messages → … until the policy answers
// or the turn budget runs out. No HTTP; the lead's agent loop does the same over the wire with the same
// MazeSession and judge.

import type { ChatMessage } from '../core/chat.ts';
import { MazeSession, type MazeTraceEntry } from './engine.ts';
import { mazePolicy, type AssistantTurn, type MazePolicyName } from './policies.ts';
import { mazeMessages } from './prompt.ts';
import type { MazeTask, Mode } from './task.ts';

/** Any agent: the next assistant message for the conversation so far. */
export type MazeAgent = (messages: readonly ChatMessage[]) => AssistantTurn;

export interface LocalRun {
  trace: MazeTraceEntry[];
  finalAnswer: string | null;
  messages: ChatMessage[];
  turns: number;
  stopped: 'answer' | 'max_turns';
}

export function runLocal(
  task: MazeTask,
  mode: Mode,
  agent: MazePolicyName | MazeAgent,
  opts: { maxTurns?: number } = {},
): LocalRun {
  const maxTurns = opts.maxTurns ?? 30;
  const next: MazeAgent = typeof agent === 'string' ? (m) => mazePolicy(agent, task, m) : agent;
  const session = new MazeSession(task, mode);
  const messages = mazeMessages(task);
  for (let turn = 1; turn <= maxTurns; turn++) {
    const reply = next(messages);
    const calls = reply.tool_calls ?? [];
    messages.push({ role: 'assistant', content: reply.content, ...(calls.length ? { tool_calls: calls } : {}) });
    if (calls.length === 0) {
      return { trace: session.trace(), finalAnswer: reply.content, messages, turns: turn, stopped: 'answer' };
    }
    for (const c of calls) {
      const r = session.executeSync({ id: c.id, name: c.function.name, argumentsJson: c.function.arguments });
      messages.push({ role: 'tool', tool_call_id: c.id, name: c.function.name, content: r.content });
    }
  }
  return { trace: session.trace(), finalAnswer: null, messages, turns: maxTurns, stopped: 'max_turns' };
}
