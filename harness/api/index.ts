/**
 * toolgauge's public API (`import { … } from 'toolgauge'`). The contract of a user's eval file (docs/eval.md):
 *
 *   import { describeEval, toolLoop, scorers } from 'toolgauge';
 *   describeEval('arith', { data, tools, task: toolLoop({ system, maxTurns: 5 }), scorers: [scorers.answerMatches()] });
 *
 * Everything exported here is kept stable; modules under harness/ that are not re-exported may change. Importing it
 * loads the kit and the eval API only: the built-in suites and their matchers are 'toolgauge/builtin' and
 * 'toolgauge/matchers', loaded when named.
 */

export { describeEval } from '../vitest/describe-eval.ts';
export { toolLoop, extractAnswer, type ToolLoopOptions } from '../kit/eval/tool-loop.ts';
export { scorers, normalizeAnswer, type AnswerOptions } from '../kit/eval/scorers.ts';
export { FACTUALITY_RUBRIC, type JudgeOptions, type FactualityOptions } from '../kit/eval/judge.ts';
export type { JudgeContext, JudgeEndpoint, JudgeRecord } from '../kit/eval/judge-context.ts';
export { parseJudgeReply, type JudgeVerdict, type ParsedJudgeReply } from '../kit/eval/judge-verdict.ts';
export type { EvalOptions } from '../kit/eval/suite.ts';
export type { EvalToolSource, EvalTools, ToolLease } from '../kit/eval/tool-source.ts';
export { mcp, type McpServerOptions, type McpBehaviour } from '../mcp/source.ts';
export type { ToolCallsOptions } from '../kit/eval/tool-calls.ts';
export type {
  ChatInput,
  EvalCase,
  ExpectedToolCall,
  ToolCallsMatch,
  EvalTool,
  Scorer,
  ScoreArgs,
  ScoreValue,
  Task,
  TaskContext,
  TaskOutput,
  ToolCallRecord,
} from '../kit/eval/types.ts';

// The suite kit, for suites beyond describeEval.
export { defineSuiteTests } from '../vitest/suite-tests.ts';
export { extendMatchers, type MatcherFn } from '../vitest/matchers.ts';
export { registerSuite, suiteNamed } from '../kit/registry.ts';
export type {
  SuiteDefinition,
  SuiteAggregator,
  InstanceMetaBase,
  Finished,
  Verdict,
  RunContext,
  Loaded,
} from '../kit/types.ts';
export { genericAggregator, type ScoredMeta } from '../kit/generic.ts';
export type { SamplingNeeds, SamplingValues } from '../kit/sampling.ts';

// The model client and the simulator.
export { ModelClient, type ModelClientOptions } from '../model/client.ts';
export {
  ModelCallError,
  type ChatRequest,
  type ChatResponse,
  type CallContext,
  type Sampling,
} from '../model/types.ts';
export { checkEndpoint, EndpointUnavailable } from '../model/preflight.ts';
export {
  startSimServer,
  HttpError,
  type Responder,
  type SimServer,
  type SimServerOptions,
  type SimReply,
  type ChatBody,
  type SimRequestContext,
} from '../sim/server.ts';
export { parsePolicySpec, type PolicySpec } from '../sim/policy-spec.ts';
export { runToolLoop, type LoopTrace } from '../agent/loop.ts';

// Statistics.
export {
  estimateRate,
  pairedCompare,
  compareMany,
  type MetricEstimate,
  type PairedComparison,
} from '../stats/index.ts';

// Parsing tool calls from raw model output.
export {
  parseToolCalls,
  renderToolCalls,
  FAMILIES,
  type Family,
  type ParsedCall,
  type ParseResult,
} from '../parse/index.ts';

export type { ChatMessage, OpenAITool, ToolCall } from '../core/chat.ts';
