// The perturbation engine: one MazeSession per (task, mode) run. It exposes only the tools on the task's paths,
// executes calls one at a time in the order given (parallel calls are fed in order), applies the mode to the
// activated victims and records every call with its perturbation status.
//
//   P0 clean · P1 first call (by tool name) to the victim → explicit error, later calls real · P2 every victim
//   call → explicit error · P3 first call → the task's fixed implicit corruption · P4 every call → corruption.
//
// A perturbed call does not run the tool, so it changes no state (stateful tools read clean calls only).

import type { OpenAITool, ToolExecution, ToolExecutor, ToolInvocation } from '../core/chat.ts';
import { isExplicit, isPermanent, taskToolNames, type MazeTask, type Mode } from './task.ts';
import { callTool, mustGetTool, openAITool } from './tools/index.ts';
import type { HistoryEntry, ToolArgs, ToolResult } from './tools/types.ts';
import { VictimTracker, type Activation } from './victims.ts';

export type PerturbationStatus = 'clean' | 'explicit_error' | 'implicit_corruption' | 'tool_error';
export type ErrorKind = 'malformed_arguments' | 'unknown_tool' | 'invalid_arguments' | 'invalid_use';

export interface MazeTraceEntry {
  /** Position in the run (0, 1, 2, …): the logical timestamp of the call. */
  index: number;
  call_id: string;
  name: string;
  arguments_json: string;
  /** Parsed arguments; null when the JSON was malformed. */
  args: ToolArgs | null;
  /** What the agent saw (also `JSON.stringify`-ed as the tool message content). */
  result: ToolResult;
  status: PerturbationStatus;
  error_kind?: ErrorKind;
  /** Set when the call went to an activated victim (perturbed or not). */
  victim?: { group: string; node: string; call_number: number };
}

export const isPerturbed = (s: PerturbationStatus) => s === 'explicit_error' || s === 'implicit_corruption';

/** Parse tool-call arguments: a JSON object, or empty text for "no arguments". */
export function parseArguments(json: string): ToolArgs | null {
  if (json.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as ToolArgs) : null;
  } catch {
    return null;
  }
}

export class MazeSession implements ToolExecutor {
  private readonly visible: Set<string>;
  private readonly tracker: VictimTracker;
  private readonly entries: MazeTraceEntry[] = [];
  private readonly history: HistoryEntry[] = [];
  private readonly victimCalls = new Map<string, number>();

  constructor(
    readonly task: MazeTask,
    readonly mode: Mode,
  ) {
    this.visible = new Set(taskToolNames(task));
    this.tracker = new VictimTracker(task);
  }

  /** The agent-visible tool set: only the tools on the task's paths, sorted by name (no path order leaks). */
  tools(): OpenAITool[] {
    return [...this.visible].sort().map((n) => openAITool(mustGetTool(n)));
  }

  async execute(call: ToolInvocation): Promise<ToolExecution> {
    return this.executeSync(call);
  }

  /** Synchronous core of `execute` (the in-memory driver and the bench use it directly). */
  executeSync(call: ToolInvocation): ToolExecution {
    const e = this.run(call);
    this.entries.push(e);
    return {
      content: JSON.stringify(e.result),
      meta: {
        perturbation_status: e.status,
        index: e.index,
        ...(e.error_kind ? { error_kind: e.error_kind } : {}),
        ...(e.victim ? { victim_group: e.victim.group } : {}),
      },
    };
  }

  private run(call: ToolInvocation): MazeTraceEntry {
    const base = { index: this.entries.length, call_id: call.id, name: call.name, arguments_json: call.argumentsJson };
    const args = parseArguments(call.argumentsJson);
    if (args === null) {
      return {
        ...base,
        args: null,
        result: { error: `arguments are not a valid JSON object: ${truncate(call.argumentsJson)}` },
        status: 'tool_error',
        error_kind: 'malformed_arguments',
      };
    }
    if (!this.visible.has(call.name)) {
      return {
        ...base,
        args,
        result: { error: `unknown tool "${call.name}"` },
        status: 'tool_error',
        error_kind: 'unknown_tool',
      };
    }
    const victim = this.tracker.touch(call.name, base.index);
    if (victim) {
      const n = (this.victimCalls.get(victim.tool) ?? 0) + 1;
      this.victimCalls.set(victim.tool, n);
      const tag = { group: victim.group, node: victim.node, call_number: n };
      const perturb = this.mode !== 'P0' && (isPermanent(this.mode) || n === 1);
      if (perturb) {
        if (isExplicit(this.mode)) {
          const msg = this.mode === 'P1' ? victim.explicit.P1 : victim.explicit.P2;
          return { ...base, args, result: { error: msg }, status: 'explicit_error', victim: tag };
        }
        return {
          ...base,
          args,
          result: structuredClone(victim.implicit.payload),
          status: 'implicit_corruption',
          victim: tag,
        };
      }
      return { ...this.real(call.name, args, base), victim: tag };
    }
    return this.real(call.name, args, base);
  }

  private real(name: string, args: ToolArgs, base: Omit<MazeTraceEntry, 'args' | 'result' | 'status'>): MazeTraceEntry {
    const r = callTool(name, args, this.history);
    if (r.kind === 'clean') {
      this.history.push({ name, args, result: r.result });
      return { ...base, args, result: r.result, status: 'clean' };
    }
    return {
      ...base,
      args,
      result: r.result,
      status: 'tool_error',
      error_kind: r.kind === 'invalid_arguments' ? 'invalid_arguments' : 'invalid_use',
    };
  }

  /** Every call so far, in order (a copy). */
  trace(): MazeTraceEntry[] {
    return structuredClone(this.entries);
  }

  /** Victims activated so far (first touch order). */
  activations(): Activation[] {
    return this.tracker.activations();
  }
}

function truncate(s: string, n = 120): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

export type { ToolResult };
