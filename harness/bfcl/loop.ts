// BFCL's inference loop (base_handler.py inference_single_turn_* / inference_multi_turn_*), as a function of one
// "ask the model" callback, producing the `result` BFCL would write. Multi-turn: per turn the user message (or,
// on a miss_func holdout turn, the message returning the held-out functions), then steps until the model answers
// without a decodable call; each step's calls run in the run's own instances and their results go back (FC: tool
// messages; prompt mode: one user message); more than 20 steps in a turn ends the case (force-terminated).
// The suite kit calls this with its model client; tests call it with the simulator's responder.
import type { ChatMessage, OpenAITool, ToolCall } from '../core/chat.ts';
import type { PyValue } from '../core/pyliteral/index.ts';
import { checkKindOf, isLongContext } from './categories.ts';
import { functionNamesOf, type BfclCase } from './data.ts';
import { decodeExecute, DecodeError, isEmptyExecuteResponse } from './decode.ts';
import type { BfclExecutor } from './executor.ts';
import {
  executionResultsMessage,
  HOLDOUT_MESSAGE_FC,
  holdoutMessage,
  modelFacingDocs,
  toOpenAiTools,
  withSystemPrompt,
} from './prompt.ts';
import { PyFloat } from '../core/pyliteral/pyjson.ts';

export const MAXIMUM_STEP_LIMIT = 20;

export interface ModelReply {
  content: string | null;
  tool_calls?: ToolCall[];
}

export type AskModel = (messages: ChatMessage[], tools: OpenAITool[]) => Promise<ModelReply>;

export interface LoopOptions {
  mode: 'fc' | 'prompt';
  /** Multi-turn cases need one (the run's own instances; scoring starts fresh ones). */
  executor?: BfclExecutor;
  /** BFCL names the run's instances `<model>_<id>`. */
  modelName?: string;
}

/** One step's model_responses as BFCL stores it: FC `[{name: arguments}]` (or the text), prompt mode the text. */
export function stepResponse(reply: ModelReply, mode: 'fc' | 'prompt'): PyValue {
  if (mode === 'fc' && reply.tool_calls?.length) {
    return {
      t: 'list',
      items: reply.tool_calls.map(
        (tc): PyValue => ({
          t: 'dict',
          entries: [
            [
              { t: 'str', v: tc.function.name },
              { t: 'str', v: tc.function.arguments },
            ],
          ],
        }),
      ),
    };
  }
  return { t: 'str', v: reply.content ?? '' };
}

/** Plain document data (floats kept as PyFloat) as a Python value. */
function plainToPy(v: unknown): PyValue {
  if (v instanceof PyFloat) return { t: 'float', v: v.value };
  if (v === null || v === undefined) return { t: 'none' };
  if (typeof v === 'boolean') return { t: 'bool', v };
  if (typeof v === 'number') return Number.isInteger(v) ? { t: 'int', v: BigInt(v) } : { t: 'float', v };
  if (typeof v === 'string') return { t: 'str', v };
  if (Array.isArray(v)) return { t: 'list', items: v.map(plainToPy) };
  return {
    t: 'dict',
    entries: Object.entries(v as Record<string, unknown>).map(([k, x]): [PyValue, PyValue] => [
      { t: 'str', v: k },
      plainToPy(x),
    ]),
  };
}

/** Run one case the way BFCL's handler would and return its `result`. */
export async function runBfclCase(c: BfclCase, ask: AskModel, opts: LoopOptions): Promise<PyValue> {
  const docs = modelFacingDocs(c.id, c.entry.functions);
  if (checkKindOf(c.category) !== 'multi_turn') {
    const first = c.entry.question[0] ?? [];
    const messages = opts.mode === 'prompt' ? withSystemPrompt(first as ChatMessage[], docs) : (first as ChatMessage[]);
    const reply = await ask(messages, opts.mode === 'fc' ? toOpenAiTools(docs) : []);
    return stepResponse(reply, opts.mode);
  }
  if (!opts.executor) throw new Error('runBfclCase: multi-turn cases need an executor');
  const exec = opts.executor;
  const handle = await exec.start({
    classes: c.entry.involvedClasses ?? [],
    initialConfigJson: c.entry.initialConfigJson ?? '{}',
    longContext: isLongContext(c.category),
    label: `${opts.modelName ?? 'toolgauge'}_${c.id}`,
    functions: functionNamesOf(c.entry),
  });
  const functions = [...docs];
  const messages: ChatMessage[] = [];
  const turns: PyValue[] = [];
  try {
    for (let turn = 0; turn < c.entry.question.length; turn++) {
      let userMessages = c.entry.question[turn] as ChatMessage[];
      const held = c.entry.missedFunctions?.[String(turn)];
      if (held) {
        const heldDocs = modelFacingDocs(c.id, held);
        functions.push(...heldDocs);
        userMessages = [
          opts.mode === 'fc'
            ? { role: 'user', content: HOLDOUT_MESSAGE_FC }
            : holdoutMessage('prompt', heldDocs.map(plainToPy)),
        ];
      }
      if (turn === 0 && opts.mode === 'prompt') userMessages = withSystemPrompt(userMessages, docs);
      messages.push(...userMessages);
      const steps: PyValue[] = [];
      let forceQuit = false;
      for (let count = 0; ; ) {
        const reply = await ask([...messages], opts.mode === 'fc' ? toOpenAiTools(functions) : []);
        const response = stepResponse(reply, opts.mode);
        steps.push(response);
        messages.push({
          role: 'assistant',
          content: reply.content,
          ...(opts.mode === 'fc' && reply.tool_calls?.length ? { tool_calls: reply.tool_calls } : {}),
        });
        let calls: string[];
        try {
          calls = decodeExecute(opts.mode === 'fc' ? 'fc' : 'pythonic', response);
        } catch (err) {
          if (err instanceof DecodeError) break;
          throw err;
        }
        if (isEmptyExecuteResponse(calls)) break;
        const results = await exec.call(handle, calls);
        if (opts.mode === 'fc') {
          results.forEach((content, i) =>
            messages.push({ role: 'tool', content, tool_call_id: reply.tool_calls?.[i]?.id ?? `call_${i}` }),
          );
        } else messages.push(executionResultsMessage(calls, results));
        count++;
        if (count > MAXIMUM_STEP_LIMIT) {
          forceQuit = true;
          break;
        }
      }
      turns.push({ t: 'list', items: steps });
      if (forceQuit) break;
    }
  } finally {
    await exec.close(handle);
  }
  return { t: 'list', items: turns };
}
