// Agents by name, as ToolMaze's BaseAgent registry has them: `openai` (native tool calls over chat completions),
// `vllm` (the same wire format, against a vLLM server's tool-call parser), `mcp` (tools described in the prompt,
// calls parsed from the text) and `anthropic` (the Messages API). A user module registers its own with
// `registerAgent` (or `--agent-module FILE`, whose default export is an AgentFactory); see docs/maze-runs.md.

import type { ChatMessage, ToolExecutor } from '../core/chat.ts';
import { AnthropicClient } from '../model/anthropic.ts';
import type { ModelClient } from '../model/client.ts';
import type { CallContext, Sampling, Usage } from '../model/types.ts';
import { runToolLoop, type LoopTrace } from './loop.ts';

/** What an agent is given for one run. */
export interface AgentInput {
  system: string;
  user: string;
  /** The run's tools (`tools()`) and their execution (`execute(call)`, once per call, in order). */
  executor: ToolExecutor;
  maxTurns: number;
  maxToolCallsPerTurn?: number;
  sampling?: Sampling;
  /** Who is asking (sent as headers; the simulator uses them). */
  ctx: CallContext;
}

/**
 * What an agent hands back: the conversation (its last assistant message is the final answer), the number of model
 * calls, the tokens they used, and whether the turn budget ran out before a tool-free answer. An endpoint failure is
 * thrown — a LoopError (harness/agent/loop.ts) keeps the partial trace; any other error counts as a harness error.
 */
export interface AgentResult {
  messages: ChatMessage[];
  turns: number;
  usage: Usage;
  exhausted: boolean;
}

export interface Agent {
  run(input: AgentInput): Promise<AgentResult>;
}

/** The endpoint an agent talks to: the run's model, URL and key, its limits, and the run's OpenAI client. */
export interface AgentEndpoint {
  model: string;
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  retries: number;
  deadlineMs?: number;
  concurrency: number;
  temperature?: number;
  maxTokens?: number;
  backoff?: { baseMs: number; maxMs: number };
  /** The run's OpenAI-compatible client (shared: one concurrency limit, the request cache). */
  openai(): ModelClient;
}

export interface AgentFactory {
  /** `--agent-type NAME`: letters, digits, `-` and `_`. */
  name: string;
  /** One line for `--help` and the docs. */
  description?: string;
  create(endpoint: AgentEndpoint): Agent;
}

const resultOf = (t: LoopTrace): AgentResult => ({
  messages: t.messages,
  turns: t.modelCalls.length,
  usage: t.usage,
  exhausted: t.exhausted,
});

/** The tool loop on a client with the chat call of ModelClient. */
function loopAgent(client: () => Pick<ModelClient, 'chat'>, callStyle: 'fc' | 'prompt'): Agent {
  return {
    async run(i) {
      const trace = await runToolLoop({
        client: client() as ModelClient,
        ctx: i.ctx,
        system: i.system,
        user: i.user,
        executor: i.executor,
        maxTurns: i.maxTurns,
        ...(i.maxToolCallsPerTurn !== undefined ? { maxToolCallsPerTurn: i.maxToolCallsPerTurn } : {}),
        callStyle,
        ...(i.sampling ? { sampling: i.sampling, finalSampling: i.sampling } : {}),
      });
      return resultOf(trace);
    },
  };
}

export const BUILTIN_AGENTS: readonly AgentFactory[] = [
  {
    name: 'openai',
    description: 'native tool calls over OpenAI chat completions (tools / tool_calls)',
    create: (e) => loopAgent(() => e.openai(), 'fc'),
  },
  {
    name: 'vllm',
    description:
      "native tool calls over a vLLM server's chat completions (its --enable-auto-tool-choice --tool-call-parser)",
    create: (e) => loopAgent(() => e.openai(), 'fc'),
  },
  {
    name: 'mcp',
    description: 'tools described in the system prompt, calls parsed from the text (ToolMaze: MCP-style prompting)',
    create: (e) => loopAgent(() => e.openai(), 'prompt'),
  },
  {
    name: 'anthropic',
    description: "Anthropic's Messages API (tool_use / tool_result blocks, x-api-key)",
    create: (e) => {
      let client: AnthropicClient | undefined;
      const get = () =>
        (client ??= new AnthropicClient({
          baseUrl: e.baseUrl,
          apiKey: e.apiKey,
          model: e.model,
          timeoutMs: e.timeoutMs,
          retries: e.retries,
          concurrency: e.concurrency,
          ...(e.deadlineMs !== undefined ? { deadlineMs: e.deadlineMs } : {}),
          ...(e.temperature !== undefined ? { temperature: e.temperature } : {}),
          ...(e.maxTokens !== undefined ? { maxTokens: e.maxTokens } : {}),
          ...(e.backoff ? { backoff: e.backoff } : {}),
        }));
      return loopAgent(get, 'fc');
    },
  },
];

const registry = new Map<string, AgentFactory>(BUILTIN_AGENTS.map((a) => [a.name, a]));

/** Register an agent under its name; a built-in name cannot be taken, another registration of a user name replaces it. */
export function registerAgent(f: AgentFactory): void {
  if (!f || typeof f !== 'object' || typeof f.name !== 'string' || typeof f.create !== 'function') {
    throw new TypeError('an agent is an object { name: string, create(endpoint) => { run(input) } }');
  }
  if (!/^[A-Za-z0-9_-]+$/.test(f.name)) throw new TypeError(`agent name '${f.name}': use letters, digits, - and _`);
  if (BUILTIN_AGENTS.some((b) => b.name === f.name)) throw new TypeError(`agent name '${f.name}' is built in`);
  registry.set(f.name, f);
}

export function agentFactory(name: string): AgentFactory | undefined {
  return registry.get(name);
}

export function agentNames(): string[] {
  return [...registry.keys()];
}

/** Load a module whose default export (or `agent` export) is an AgentFactory, and register it; returns its name. */
export async function loadAgentModule(fileUrl: string): Promise<string> {
  const mod = (await import(fileUrl)) as { default?: unknown; agent?: unknown };
  const f = (mod.default ?? mod.agent) as AgentFactory | undefined;
  if (!f) throw new TypeError(`${fileUrl}: no default export (an agent: { name, create(endpoint) })`);
  registerAgent(f);
  return f.name;
}
