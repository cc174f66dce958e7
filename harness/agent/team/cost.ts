import type { LoopTrace } from '../loop.ts';

/** What one agent run (or a whole team) spent: the cost side of "is the team better?". */
export interface Cost {
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  toolCalls: number;
  /** Time spent inside the agent's own loop(s); for a team, see TeamCost.wallMs. */
  wallMs: number;
}

export function zeroCost(): Cost {
  return { modelCalls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, toolCalls: 0, wallMs: 0 };
}

export function costOfLoop(trace: Pick<LoopTrace, 'modelCalls' | 'tools' | 'usage' | 'wallMs'>): Cost {
  return {
    modelCalls: trace.modelCalls.length,
    promptTokens: trace.usage.prompt_tokens,
    completionTokens: trace.usage.completion_tokens,
    totalTokens: trace.usage.total_tokens,
    toolCalls: trace.tools.length,
    wallMs: trace.wallMs,
  };
}

export function addCosts(...costs: Cost[]): Cost {
  const out = zeroCost();
  for (const c of costs) {
    out.modelCalls += c.modelCalls;
    out.promptTokens += c.promptTokens;
    out.completionTokens += c.completionTokens;
    out.totalTokens += c.totalTokens;
    out.toolCalls += c.toolCalls;
    out.wallMs += c.wallMs;
  }
  return out;
}

export interface TeamCost {
  /** Sum over every run of every agent. `total.wallMs` is agent-time (members running in parallel add up). */
  total: Cost;
  /** Per agent id (a manager's delegation and synthesis runs add up under one id). */
  byAgent: Record<string, Cost>;
  /** Elapsed time of the whole team on this instance. */
  wallMs: number;
}

export function teamCost(runs: ReadonlyArray<{ agent: string; cost: Cost }>, wallMs: number): TeamCost {
  const byAgent: Record<string, Cost> = {};
  for (const r of runs) byAgent[r.agent] = addCosts(byAgent[r.agent] ?? zeroCost(), r.cost);
  return { total: addCosts(...runs.map((r) => r.cost)), byAgent, wallMs };
}
