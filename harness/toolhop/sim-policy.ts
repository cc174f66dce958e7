import type { ChatMessage, OpenAITool } from '../core/chat.ts';
import { deriveSeed, hashString, Rng } from '../core/rng.ts';
import type { PolicySpec } from '../sim/policy-spec.ts';
import type { SimCallContext, SimReply } from '../sim/server.ts';
import { plausibleArguments } from './oracle-args.ts';
import { FINALIZER_SYSTEM_PROMPT } from './prompts.ts';
import type { ToolhopRow } from './row.ts';
import { systemOf, traitWins } from './sim-trait.ts';
import { toolEntries } from './tools.ts';

/**
 * The simulated model on a ToolHop row. It knows the row (given by the suite, never read from the request) and
 * decides from the conversation so far: hop k's tool is called once k tool results are in the history, then it
 * answers. Pure: same row, messages and seed give the same reply.
 */
export function toolhopReply(
  spec: PolicySpec,
  row: ToolhopRow,
  messages: ChatMessage[],
  tools: OpenAITool[] | undefined,
  ctx: SimCallContext,
): SimReply {
  const final = finalAnswer(spec, row, messages, ctx);
  if (isFinalizerCall(messages)) return { content: `<answer>${final}</answer>` };

  const entries = toolEntries(row);
  const offered = new Set((tools ?? []).map((t) => t.function.name));
  const results = messages.filter((m) => m.role === 'tool');
  const hop = messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;

  // A losing coin answers at once, without tools: ToolHop's third scoring rule counts an answer correct when the
  // gold appears in the last tool result (true for most rows once the chain ran), and a coin calibrates
  // statistics only if its scored accuracy is exactly its p. With tools=none a winning coin answers at once too.
  if (spec.name === 'coin' && (spec.coinTools === 'none' || !coinWins(spec, ctx)))
    return { content: `<answer>${final}</answer>` };
  // The optimizer fixture loses the same way, on the draw its role prompt's instructions set (sim-trait.ts).
  if (spec.name === 'trait' && !traitWins(spec, row, systemOf(messages), ctx))
    return { content: `<answer>${final}</answer>` };
  if (spec.name === 'naive' && results.length > 0) {
    // Answers after the first tool result, trusting it as the answer.
    return { content: `<answer>${unquote(String(results[0]!.content ?? ''))}</answer>` };
  }
  const next = entries[hop];
  if (next && offered.has(next.runtimeName) && (spec.name !== 'naive' || hop === 0)) {
    const previous = hop > 0 ? Object.values(row.sub_task)[hop - 1] : undefined;
    const args = plausibleArguments(next, row.functions[next.index] ?? '', previous);
    return {
      content: null,
      tool_calls: [
        {
          id: `call_${ctx.agent}_${hop}`,
          type: 'function',
          function: { name: next.runtimeName, arguments: JSON.stringify(args) },
        },
      ],
    };
  }
  if (spec.name === 'untagged') return { content: `The answer is ${final}.` };
  return { content: `<answer>${final}</answer>` };
}

function isFinalizerCall(messages: ChatMessage[]): boolean {
  return messages[0]?.role === 'system' && messages[0].content === FINALIZER_SYSTEM_PROMPT;
}

/** The value this policy will answer for this instance/agent/trial. */
export function finalAnswer(spec: PolicySpec, row: ToolhopRow, messages: ChatMessage[], ctx: SimCallContext): string {
  switch (spec.name) {
    case 'wrong':
      return wrongAnswer(row.answer);
    case 'coin':
      return coinWins(spec, ctx)
        ? row.answer
        : spec.wrong === 'diverse'
          ? agentWrongAnswer(row.answer, ctx.agent)
          : wrongAnswer(row.answer);
    case 'trait':
      return traitWins(spec, row, systemOf(messages), ctx) ? row.answer : wrongAnswer(row.answer);
    case 'naive': {
      const first = messages.find((m) => m.role === 'tool');
      return first ? unquote(String(first.content ?? '')) : '';
    }
    default:
      return row.answer;
  }
}

/** The coin for this instance, agent and trial (the same on every request of the run). */
export function coinWins(spec: PolicySpec, ctx: SimCallContext): boolean {
  return new Rng(deriveSeed(spec.seed, ctx.instance, ctx.agent, ctx.trial, 'coin')).chance(spec.p);
}

const FILLERS = ['unknown', '0', 'zzz', 'Q', '-1', 'xyzzy', '1', '1900-01-01', 'Nobody'];

/**
 * A wrong answer that the scorer rejects on its own (no literal equality, gold not a substring), and that is the
 * same for every agent on the instance, so team votes follow binomial arithmetic.
 */
export function wrongAnswer(gold: string): string {
  // Wrong by construction, not by asking the scorer: another integer, a date three years on, or else a word made
  // only of characters the gold does not contain (so the gold can be neither equal to it nor inside it).
  const g = gold.trim();
  if (/^-?\d+$/.test(g)) return String(BigInt(g) + 7n);
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(g);
  if (date) return `${Number(date[1]) + 3}-${date[2]}-${date[3]}`;
  const lower = g.toLowerCase();
  const filler = FILLERS.find((f) => [...f.toLowerCase()].every((c) => !lower.includes(c)));
  if (filler) return filler;
  const spare = [...'qxzjkvw#~'].filter((c) => !lower.includes(c));
  return spare.slice(0, 3).join('') || '#';
}

/**
 * `sim:coin?wrong=diverse`: a wrong answer of this agent's own — the shared one, then k copies of a character the
 * gold does not contain, k from the agent id's trailing number (or its hash): no two agents of a team agree on a
 * wrong value, and the gold can be neither equal to it nor inside it (the added character is not in the gold).
 */
export function agentWrongAnswer(gold: string, agent: string): string {
  const base = wrongAnswer(gold);
  const lower = gold.trim().toLowerCase();
  const spare = [...'qxzjkvw#~'].find((c) => !lower.includes(c));
  const n = /(\d+)$/.exec(agent);
  const k = n ? Number(n[1]) : (hashString(agent) % 97) + 1;
  return spare && k > 0 ? `${base}${spare.repeat(k)}` : base;
}

function unquote(s: string): string {
  const t = s.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}
