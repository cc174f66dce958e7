/**
 * Which tool-call family a chat template writes, found by what it renders: the template writes a known call
 * (get_weather with city Paris) into an assistant turn, the part it adds after the generation prompt is exactly
 * what the model is trained to generate, and the parsers recognise the family that reads the call back. Marker
 * guessing from the template source (harness/parse familyOfTemplate) is only the fallback when nothing renders.
 *
 * llama.cpp's chat auto-parser finds the format the same way (diffing renders of the template); this is what
 * makes Qwen3.5 XML, Seed-OSS, GLM, Gemma 4, LFM2, Phi-4-mini and Kimi-K2 templates come out right.
 */
import { AUTO_ORDER, familyOfTemplate, parseToolCalls, type Family } from '../parse/index.ts';
import { PROBE_ARGUMENTS, PROBE_TOOL, PROBE_TOOL_NAME, PROBE_TOOL_PLAIN, userMessage } from './fixtures.ts';
import { referenceTemplate } from './reference.ts';
import type { RenderAllowance } from './engine.ts';
import { renderChat } from './render.ts';
import { applyShape, SHAPES } from './shapes.ts';
import type { ChatMessage, OpenAITool } from './types.ts';

export type TemplateFamily = Family;

export interface FamilyDetection {
  family: Family | null;
  /** `rendered`: read back from the template's own rendering of a call; `markers`: guessed from its source */
  how: 'rendered' | 'markers' | 'none';
  /** the text the template writes for the probe call (what the model would generate), when it rendered */
  call?: string;
  /** the family has a toolgauge reference template (repairs and verification use it); false: "unverified" */
  verified: boolean;
}

const callTurn = (): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [
    {
      id: 'call0probe',
      type: 'function',
      function: { name: PROBE_TOOL_NAME, arguments: JSON.stringify(PROBE_ARGUMENTS) },
    },
  ],
});

function render(
  source: string,
  messages: ChatMessage[],
  tools: OpenAITool[],
  addGenerationPrompt: boolean,
  allowance?: RenderAllowance,
): string | null {
  try {
    return renderChat(source, { messages, tools, addGenerationPrompt, ...(allowance ? { allowance } : {}) });
  } catch {
    return null;
  }
}

/**
 * The assistant's part: what `full` adds after the generation prompt `prefix`. When the generation prompt is
 * not a prefix (it opens a think block the history does not have, say), the part starts after their common
 * start, moved back to the last line break or tag end so a marker is never cut in two.
 */
export function generatedPart(prefix: string, full: string): string {
  if (full.startsWith(prefix)) return full.slice(prefix.length);
  let i = 0;
  while (i < prefix.length && i < full.length && prefix[i] === full[i]) i++;
  const cut = Math.max(full.lastIndexOf('\n', i - 1), full.lastIndexOf('>', i - 1)) + 1;
  return full.slice(cut);
}

/**
 * The order families are tried in when reading back a rendered call: AUTO_ORDER, except that FireFunction's
 * `functools[…]` is its own before Phi-4-mini's (which also reads it), and Llama's JSON (which, named, reads any
 * top-level JSON object) comes last.
 */
const DETECT_ORDER: readonly Family[] = (() => {
  const order: Family[] = AUTO_ORDER.filter((f) => f !== 'llama_json' && f !== 'firefunction');
  order.splice(order.indexOf('phi4_mini'), 0, 'firefunction');
  return [...order, 'llama_json'];
})();

/** The family whose parser reads exactly the probe call back from `text` (strict first, then lenient). */
export function familyOfCall(text: string): Family | null {
  const tools = [PROBE_TOOL.function];
  const want = JSON.stringify({ name: PROBE_TOOL_NAME, arguments: PROBE_ARGUMENTS });
  for (const tier of ['strict', 'lenient'] as const) {
    for (const family of DETECT_ORDER) {
      const r = parseToolCalls(text, { tier, format: family, tools });
      if (r.format === family && r.calls.length === 1 && JSON.stringify(r.calls[0]) === want) return family;
    }
  }
  return null;
}

/**
 * Detect the family by rendering. Tries the standard message shapes in order (dict arguments first) and both
 * probe tools; the first render that shows the call decides.
 */
export function detectTemplateFamily(source: string, allowance?: RenderAllowance): FamilyDetection {
  for (const tool of [PROBE_TOOL, PROBE_TOOL_PLAIN]) {
    const prefix = render(source, [userMessage()], [tool], true, allowance);
    if (prefix === null) continue;
    for (const shape of SHAPES) {
      const [user, call] = applyShape([userMessage(), callTurn()], shape);
      const full = render(source, [user!, call!], [tool], false, allowance);
      if (full === null) continue;
      const part = generatedPart(prefix, full);
      const family = familyOfCall(part);
      if (family) return { family, how: 'rendered', call: part, verified: referenceTemplate(family) !== null };
    }
  }
  const guessed = familyOfTemplate(source);
  if (guessed) return { family: guessed, how: 'markers', verified: referenceTemplate(guessed) !== null };
  return { family: null, how: 'none', verified: false };
}

const memo = new Map<string, FamilyDetection>();

/** The family a template writes (detectTemplateFamily, memoised by source), or null. */
export function detectFamily(source: string): Family | null {
  let hit = memo.get(source);
  if (!hit) {
    hit = detectTemplateFamily(source);
    if (memo.size > 256) memo.delete(memo.keys().next().value!);
    memo.set(source, hit);
  }
  return hit.family;
}
