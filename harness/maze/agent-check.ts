import { pathToFileURL } from 'node:url';
import { agentFactory, loadAgentModule } from '../agent/registry.ts';
import { UsageError } from '../core/errors.ts';
import type { RunPlan } from '../kit/plan.ts';
import type { MazeConfig } from './config.ts';
import { checkAnthropicEndpoint } from '../model/anthropic.ts';
import { checkEndpoint } from '../model/preflight.ts';

/** `--agent-module FILE`: loaded once before the run, so a bad module is one line and exit 2, not N failed instances. */
export async function checkAgentModule(m: Pick<MazeConfig, 'agentType' | 'agentModule'>): Promise<void> {
  if (!m.agentModule || agentFactory(m.agentType)) return;
  let name: string;
  try {
    name = await loadAgentModule(pathToFileURL(m.agentModule).href);
  } catch (err) {
    throw new UsageError(`toolgauge maze: --agent-module ${m.agentModule}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (name !== m.agentType)
    throw new UsageError(
      `toolgauge maze: --agent-module ${m.agentModule} registers the agent '${name}', not '${m.agentType}' (--agent-type)`,
    );
}

/** The endpoint check in the agent's own protocol: the Messages API for anthropic, chat completions otherwise. */
export async function mazePreflight(kc: RunPlan, m: Pick<MazeConfig, 'agentType'>): Promise<void> {
  const baseUrl = kc.run.baseUrl!;
  if (m.agentType === 'anthropic') return checkAnthropicEndpoint({ baseUrl, apiKey: kc.run.apiKey });
  await checkEndpoint({ baseUrl, apiKey: kc.run.apiKey, model: kc.run.model });
}
