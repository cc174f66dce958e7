// What an MCP server of toolgauge's serves: a tool world (a Maze task under a mode, a ToolHop row…) that lists its
// tools and answers calls, and the call log every served call is recorded in.

import { appendJsonl } from '../core/jsonl.ts';
import type { OpenAITool, ToolInvocation } from '../core/chat.ts';

/** One answered call: the text the agent sees, whether MCP marks it an error, and what the log records of it. */
export interface ServedResult {
  /** The tool result content, as the in-process loop would hand it to the model. */
  content: string;
  /** MCP's `isError`: the call failed (an injected error, invalid arguments, an unknown tool). */
  isError: boolean;
  /** The world's own facts about the call for the log (perturbation applied, victim…); never shown to the agent. */
  record: Record<string, unknown>;
}

/** A set of tools with state of its own: one per MCP session, so every client starts a fresh run. */
export interface ServedWorld {
  tools(): OpenAITool[];
  call(c: ToolInvocation): Promise<ServedResult>;
}

/** One line of the call log (JSONL). */
export interface CallLogLine {
  time: string;
  session: string;
  tool: string;
  /** The call's arguments as sent (text when they were not a JSON object). */
  arguments: unknown;
  /** The result as the agent saw it (parsed back from its text when that is JSON). */
  result: unknown;
  is_error: boolean;
  [fact: string]: unknown;
}

export type CallLog = (line: CallLogLine) => void;

/** A call log appended to a JSONL file (one write per line; redacted like every file toolgauge writes). */
export function jsonlCallLog(path: string): CallLog {
  return (line) => {
    appendJsonl(path, line);
  };
}

/** The result text as a value: JSON when it parses, else the text itself. */
export function resultValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
