import { scoringLine } from './feedback.ts';
import type { Rollout } from './types.ts';

/**
 * The prompts the optimizer sends to the reflection (GEPA) or proposal (MIPRO) model, and reading the new
 * instruction back. Pure. The layout — the current instruction between CURRENT_OPEN/CURRENT_CLOSE, one
 * `### Example N (wrong|correct)` block per rollout with a `Question:` line, the answer between
 * `<instruction>` tags — is also what the calibration fixture `sim:reflect` reads (sim-reflect.ts).
 */

export const CURRENT_OPEN = '<current_instruction>';
export const CURRENT_CLOSE = '</current_instruction>';
export const EXAMPLE_HEADER = /^### Example (\d+) \((wrong|correct)\)\s*$/gm;

export interface ReflectionContext {
  topology: string;
  role: string;
  /** Every role of the topology, and the one whose answer is scored. */
  roles: readonly string[];
  answerer: string | null;
  current: string;
}

/** One rollout as an example block, written for the role being improved. */
export function exampleBlock(r: Rollout, n: number, role: string): string {
  const f = r.feedback;
  const lines = [
    `### Example ${n} (${f.correct ? 'correct' : 'wrong'})`,
    `Question: ${f.question.replace(/\s+/g, ' ').trim()}`,
    `Gold answer: ${f.gold}`,
    `Predicted answer: ${f.predicted || '(none)'}`,
    `Scoring: ${scoringLine(f)}`,
    `Tool calls: ${f.toolCalls}${f.toolErrors.length ? ` (errors: ${f.toolErrors.join(' | ')})` : ''}`,
  ];
  if (f.answeredBy) lines.push(`The scored answer came from role "${f.answeredBy}".`);
  if (f.vote)
    lines.push(
      `Vote: ${Object.entries(f.vote)
        .map(([k, v]) => `'${k}' ×${v}`)
        .join(', ')}`,
    );
  if (f.forcedFinal) lines.push('The final answer had to be forced (no <answer> tag at the end of the run).');
  for (const run of f.runs.filter((x) => x.role === role).slice(0, 3)) {
    const extra = [run.toolErrors ? `${run.toolErrors} tool errors` : '', run.error ? `error: ${run.error}` : '']
      .filter(Boolean)
      .join('; ');
    lines.push(
      `Role "${role}" (${run.agent}) ended with: ${run.final ? JSON.stringify(run.final) : '(nothing)'}${extra ? ` — ${extra}` : ''}`,
    );
  }
  const others = f.runs.filter((x) => x.role !== role && (x.error || x.toolErrors));
  if (others.length)
    lines.push(
      `Other roles with problems: ${others.map((x) => `${x.role} (${x.error ? 'error' : `${x.toolErrors} tool errors`})`).join(', ')}`,
    );
  return lines.join('\n');
}

function preamble(c: ReflectionContext): string {
  const team =
    c.roles.length > 1
      ? `The system is a team (topology "${c.topology}") with the roles ${c.roles.map((r) => `"${r}"`).join(', ')}${c.answerer ? `; the team's answer is the final message of "${c.answerer}"` : ''}. `
      : `The system is a single agent (topology "${c.topology}"). `;
  return (
    'You are improving one instruction of a system of language-model agents that answers multi-hop questions by calling tools ' +
    '(ToolHop: each question needs a chain of tool calls, each feeding the next). ' +
    team +
    `The instruction to improve is the one of the role "${c.role}".\n\n` +
    `The role's current instruction:\n${CURRENT_OPEN}\n${c.current.trim()}\n${CURRENT_CLOSE}\n`
  );
}

const RULES_FOR_WRITER =
  'Keep whatever in the current instruction still helps. Write rules that carry over to new questions; never copy specific ' +
  'entities or answers from the examples. The harness adds the answer-format contract (<answer>…</answer>) and any ' +
  'communication format itself: do not repeat them.\n' +
  'Reply with the complete new instruction between <instruction> and </instruction>.';

/** GEPA's reflection prompt: the current instruction, the minibatch's examples with feedback, the request. */
export function reflectionPrompt(c: ReflectionContext, examples: readonly Rollout[]): string {
  const blocks = examples.map((r, i) => exampleBlock(r, i + 1, c.role)).join('\n\n');
  return (
    `${preamble(c)}\n` +
    'Below are questions the system worked on with this instruction, what it answered, and what the scorer said.\n\n' +
    `${blocks}\n\n` +
    `Write an improved instruction for the role "${c.role}". Study the wrong examples: what went wrong, at which step, and which ` +
    'general rule would have prevented it; the correct ones show what to keep. ' +
    RULES_FOR_WRITER
  );
}

/** The "no reflection" ablation: the same request without examples or feedback (a blind rewrite). */
export function blindRewritePrompt(c: ReflectionContext): string {
  return `${preamble(c)}\nWrite an improved instruction for the role "${c.role}". ${RULES_FOR_WRITER}`;
}

/** MIPRO's proposal prompt: grounded in bootstrapped examples, steered by a tip. */
export function proposalPrompt(c: ReflectionContext, examples: readonly Rollout[], tip: string): string {
  const blocks = examples.map((r, i) => exampleBlock(r, i + 1, c.role)).join('\n\n');
  return (
    `${preamble(c)}\n` +
    'Here is how the system did on some training questions with the current instructions:\n\n' +
    `${blocks}\n\n` +
    `Propose a new instruction for the role "${c.role}". Tip: ${tip} ` +
    RULES_FOR_WRITER
  );
}

/** Tips that make MIPRO's proposals differ (one per proposal, in turn). */
export const PROPOSAL_TIPS = [
  'Focus on the most common kind of failure in the examples.',
  'Be concise: a few precise rules beat a long essay.',
  'Describe the procedure step by step, from reading the question to the final value.',
  'Emphasise checking every intermediate value before it is passed on.',
  'Say exactly what form the final value must take.',
  'Think about what the examples that went right did differently.',
];

/**
 * The new instruction in a reflection answer: the last `<instruction>` block (after any `<think>` section), else
 * the last fenced code block, else the whole answer; null when empty.
 */
export function parseInstruction(answer: string): string | null {
  let text = answer;
  const think = text.toLowerCase().lastIndexOf('</think>');
  if (think >= 0) text = text.slice(think + '</think>'.length);
  const tagged = [...text.matchAll(/<instruction>([\s\S]*?)<\/instruction>/gi)];
  if (tagged.length) return nonEmpty(tagged[tagged.length - 1]![1]!);
  const open = text.search(/<instruction>/i);
  if (open >= 0) return nonEmpty(text.slice(open + '<instruction>'.length));
  const fences = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)];
  if (fences.length) return nonEmpty(fences[fences.length - 1]![1]!);
  return nonEmpty(text);
}

function nonEmpty(s: string): string | null {
  const t = s.trim();
  return t ? t : null;
}
