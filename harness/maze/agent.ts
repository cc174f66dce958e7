import { pathToFileURL } from 'node:url';
import { agentFactory, loadAgentModule, type Agent } from '../agent/registry.ts';
import type { RunConfig } from '../core/config.ts';
import type { ModelClient } from '../model/client.ts';
import type { MazeConfig } from './config.ts';

// One agent per process and run (a Vitest worker runs many instances): the anthropic agent's client, and its
// concurrency limit, are shared the way the run's OpenAI client is. Kept per run's client, so a second run in the
// process (another cache mode, an in-process run after a recorded one) never gets the first run's agent.
const byClient = new WeakMap<ModelClient, Map<string, Promise<Agent>>>();

/** The run's agent: `--agent-type`, loading `--agent-module` first when it names one (docs/maze-runs.md). */
export function mazeAgent(
  run: RunConfig,
  m: Pick<MazeConfig, 'agentType' | 'agentModule'>,
  client: () => ModelClient,
): Promise<Agent> {
  const openai = client();
  let agents = byClient.get(openai);
  if (!agents) byClient.set(openai, (agents = new Map()));
  const key = JSON.stringify([m.agentType, m.agentModule ?? null, openai.opts.baseUrl, run.model, run.apiKey]);
  let a = agents.get(key);
  if (!a) {
    a = (async () => {
      if (m.agentModule && !agentFactory(m.agentType)) {
        const name = await loadAgentModule(pathToFileURL(m.agentModule).href);
        if (name !== m.agentType)
          throw new Error(`--agent-module ${m.agentModule} registers the agent '${name}', not '${m.agentType}'`);
      }
      const f = agentFactory(m.agentType);
      if (!f) throw new Error(`no agent '${m.agentType}' is registered`);
      return f.create({
        model: run.model,
        baseUrl: openai.opts.baseUrl,
        apiKey: run.apiKey,
        timeoutMs: run.requestTimeoutMs,
        retries: run.retries,
        deadlineMs: run.requestDeadlineMs,
        concurrency: run.concurrency,
        temperature: run.temperature,
        ...(run.maxTokens !== undefined ? { maxTokens: run.maxTokens } : {}),
        ...(openai.opts.backoff ? { backoff: openai.opts.backoff } : {}),
        openai: () => openai,
      });
    })();
    // A failed load is not cached: the next instance reports the same error itself.
    a.catch(() => agents!.delete(key));
    agents.set(key, a);
  }
  return a;
}
