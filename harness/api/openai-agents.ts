/**
 * `import { openAIAgentsTask } from 'toolgauge/openai-agents'`: an OpenAI Agents SDK agent as a describeEval task
 * (docs/eval.md, "Your existing agent"). A subpath of its own so that the main entry never loads the Agents SDK (an
 * optional peer dependency).
 */
export {
  openAIAgentsTask,
  openAIAgentsOutput,
  type OpenAIAgentsAgent,
  type OpenAIAgentsResult,
  type OpenAIAgentsTaskContext,
} from '../adapters/openai-agents.ts';
