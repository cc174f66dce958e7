/**
 * `import { aiSdkTask } from 'toolgauge/ai-sdk'`: a Vercel AI SDK agent as a describeEval task (docs/eval.md, "Your
 * existing agent"). A subpath of its own so that the main entry never loads the AI SDK (an optional peer dependency).
 */
export {
  aiSdkTask,
  aiSdkOutput,
  type AiSdkAgent,
  type AiSdkModel,
  type AiSdkResult,
  type AiSdkSettings,
  type AiSdkTaskContext,
} from '../adapters/ai-sdk.ts';
