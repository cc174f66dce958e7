import { isPromptToolConversation, replyAsText, toNativeConversation, toolsFromPrompt } from '../agent/prompt-tools.ts';
import { HttpError, type Responder } from '../sim/server.ts';
import { mazePolicy, MAZE_POLICIES, type MazePolicyName } from './policies.ts';
import { simJudgeReply } from './sim-judge.ts';
import type { MazeTask } from './task.ts';

/**
 * The simulator's Maze behaviour: the task comes from the suite's own case files (never the request), the reply
 * from the pure policies in policies.ts. Prompt-based conversations are read back as native calls and answered
 * as text in the Hermes format, like a model without native tool calling. `sim:judge` answers the LLM judge's requests.
 */
export function mazeSimResponder(load: () => MazeTask[], source: string): Responder {
  let tasks: Map<string, MazeTask> | undefined;
  const task = (id: string) => {
    tasks ??= new Map(load().map((t) => [t.id, t]));
    return tasks.get(id);
  };
  return {
    chat(spec, body, ctx) {
      // The LLM judge's requests: answered from the judge prompt alone (harness/maze/sim-judge.ts).
      if (spec.name === 'judge')
        return {
          content: simJudgeReply(
            spec,
            body.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n'),
          ),
        };
      const name = (spec.name === 'flaky' ? 'oracle' : spec.name) as MazePolicyName;
      if (!MAZE_POLICIES.includes(name))
        throw new HttpError(
          422,
          `simulator: policy sim:${spec.name} has no Maze behaviour (use sim:oracle or sim:naive; sim:judge is the judge model of --judge-model)`,
        );
      const taskId = ctx.id.slice(0, ctx.id.lastIndexOf(':'));
      const t = task(taskId);
      if (!t) throw new HttpError(422, `simulator: no Maze task '${taskId}' in ${source}`);
      if (isPromptToolConversation(body.messages, body.tools)) {
        const tools = toolsFromPrompt(String(body.messages.find((m) => m.role === 'system')?.content ?? ''));
        return { content: replyAsText(mazePolicy(name, t, toNativeConversation(body.messages, tools))) };
      }
      return mazePolicy(name, t, body.messages);
    },
  };
}
