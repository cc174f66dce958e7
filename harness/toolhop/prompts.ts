import type { ChatMessage } from '../core/chat.ts';

/**
 * ToolHop prompts, matching the reference runner's wording (the answer-format rules and the `<answer>` output
 * contract are what the scorer relies on; keeping them identical keeps scores comparable).
 */
export const OUTPUT_CONTRACT =
  'PROTECTED FINAL OUTPUT CONTRACT:\n' +
  'End with exactly one short final answer wrapped as <answer>...</answer>.\n' +
  'This contract is not optional. Keep reasoning concise enough that the response reaches the required final artifact. ' +
  'If uncertain, still provide your best valid final artifact in the required format.';

const GENERIC_PROMPT =
  "You are solving ToolHop, a multi-hop tool-use benchmark. Use the provided tools to answer the user's question. " +
  'Keep intermediate reasoning concise. Use tool outputs to continue the chain. The final response must be short.';

/** The single agent's role: its agent id on the wire, and its prompt's name. */
export const SINGLE_AGENT = 'solver';

/** The role of every independent replica and of every decentralized peer (team.ts builds its roster from them). */
export const REPLICA_ROLES = { independent: 'solver', decentralized: 'debater' } as const;

/** A role's system prompt; roles whose output is the team's answer get the `<answer>` contract. */
export function systemPrompt(style: string, opts: { withContract: boolean; extra?: string }): string {
  let prompt = `${GENERIC_PROMPT}\n\nImplementation style: ${style}.`;
  if (opts.extra) prompt = `${prompt.trimEnd()}\n${opts.extra}`;
  if (!opts.withContract) return prompt;
  return withOutputContract(prompt);
}

/** A role prompt wrapped in the `<answer>` output contract (the single agent's system prompt). */
export function withOutputContract(rolePrompt: string): string {
  return (
    `${OUTPUT_CONTRACT}\n\n${rolePrompt.trimEnd()}\n\n` +
    'Final reminder: satisfy the protected final output contract above exactly; do not stop before emitting the required final artifact.'
  );
}

export function userPrompt(question: string, extraContext = ''): string {
  let msg =
    'Answer the question using the available tools. If the final answer is a date, use YYYY-MM-DD. ' +
    'If it is a name, use Firstname Lastname. If it contains a number, output the number, not a word, with no leading zeroes.' +
    `\n\nQuestion: ${question}`;
  if (extraContext) msg += `\n\nCONTEXT FROM OTHER AGENTS OR PRIOR STAGES:\n${extraContext.trim()}`;
  return msg;
}

export const BUDGET_EXHAUSTED_PROMPT =
  'The tool-call budget is exhausted. Do not call any more tools. Output only the best final answer using exactly this ' +
  'format: <answer>VALUE</answer>. Do not explain. Do not include any text before or after the answer tag.';

export const FINALIZER_SYSTEM_PROMPT =
  'You are a strict answer extractor. Output exactly one XML tag of the form <answer>VALUE</answer> and nothing else. ' +
  'Do not explain or include uncertainty.';

const ANSWER_TAG = /<answer>\s*([\s\S]*?)\s*<\/answer>/i;

/** Whether a message holds an `<answer>…</answer>` tag (any case): a run whose last message has none may get the final-answer call. */
export const hasAnswerTag = (text: string): boolean => ANSWER_TAG.test(text);

/**
 * The extra final-answer call after a run without an answer: the budget-exhausted turn the run's conversation
 * records (`pending`), and the call itself, made to a strict extractor over the task and the recent observations.
 */
export function finalizerRequest(messages: ChatMessage[]): { pending: ChatMessage; call: ChatMessage[] } {
  return {
    pending: { role: 'user', content: BUDGET_EXHAUSTED_PROMPT },
    call: [
      { role: 'system', content: FINALIZER_SYSTEM_PROMPT },
      {
        role: 'user',
        content: finalizationContext([...messages, { role: 'user', content: BUDGET_EXHAUSTED_PROMPT }]),
      },
    ],
  };
}

/** The user message of the extra final-answer call: the task plus the recent observations, newest kept. */
export function finalizationContext(messages: ChatMessage[], charBudget = 6000): string {
  const question = String(messages.find((m) => m.role === 'user')?.content ?? '');
  const chunks: string[] = [];
  for (const m of messages.slice(2)) {
    const content = String(m.content ?? '').trim();
    if (!content) continue;
    if (m.role === 'tool') chunks.push(`Tool observation: ${content}`);
    else if (m.role === 'assistant') chunks.push(`Assistant attempt: ${content}`);
    else if (m.role === 'user') chunks.push(`Instruction: ${content}`);
  }
  let recent = chunks.join('\n\n');
  if (recent.length > charBudget) recent = recent.slice(-charBudget);
  return (
    `Original task:\n${question}\n\nAvailable observations and attempts:\n${recent}\n\n` +
    'Return only the best final answer in exactly this format: <answer>VALUE</answer>.'
  );
}
