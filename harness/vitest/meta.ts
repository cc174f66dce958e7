/**
 * What each benchmark test leaves in `task.meta.toolgauge`. Reporters aggregate only from this (after all tests),
 * which is what makes sharded runs merged with `--merge-reports` report the same numbers as one run.
 */
export interface InstanceMetaBase {
  suite: 'toolhop' | 'maze' | 'probe';
  id: string;
  trial: number;
  /** A harness error (endpoint down after retries, broken row, sandbox crash): reported apart from wrong answers. */
  error: string | null;
  resumed?: boolean;
}

export interface ToolhopMeta extends InstanceMetaBase {
  suite: 'toolhop';
  correct: boolean;
  rule: 'literal' | 'substring' | 'tool_result' | null;
  hops: number;
  domain: string;
  answer_type: string;
  gold: string;
  predicted: string;
  turns: number;
  tool_calls: number;
  tool_errors: number;
  forced_final: boolean;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  model_latency_ms: number;
  wall_ms: number;
  retries: number;
}

// Other suites declare their own meta types extending InstanceMetaBase (harness/maze/meta.ts, harness/probe/…).
export type InstanceMeta = ToolhopMeta | InstanceMetaBase;

declare module '@vitest/runner' {
  interface TaskMeta {
    toolgauge?: InstanceMeta;
  }
}
