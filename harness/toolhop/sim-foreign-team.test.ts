import { describe, expect, it } from 'vitest';
import { readConfig } from '../core/config.ts';
import { ModelClient } from '../model/client.ts';
import { startSimServer, type SimServer } from '../sim/server.ts';
import { answerKey, extractAnswer, lastAssistantContent, previousToolContent } from './answer.ts';
import { BUNDLED_SAMPLE, loadDatasetFile } from './dataset.ts';
import { goldSandbox } from './gold-sandbox.ts';
import { FINALIZER_SYSTEM_PROMPT, finalizationContext, systemPrompt, userPrompt } from './prompts.ts';
import type { ToolhopRow } from './row.ts';
import { scoreAnswer } from './score.ts';
import { readToolhopSettings } from './settings.ts';
import { toolhopResponder } from './sim-responder.ts';
import { runToolhopTeam } from './team.ts';
import { toolEntries, toolsPayload } from './tools.ts';

// Another runner's team against the simulator, beside toolgauge's team on the same rows: the other team sends no
// toolgauge header, so the simulator must tell its members apart by their conversations and draw each member's
// coin as it draws it for toolgauge's member in the same place. The other team is written here from the reference
// runner's code (core/tasks/toolhop.py and the independent and decentralized runners): the generic system prompt
// naming its style, seeds 0…n−1 for the replicas and (round − 1) × n + peer for the peers, the debate context of its
// later rounds, the first-tag vote with ties to the earliest voter. Tools return each hop's gold value (the
// simulator is under test, not dataset Python). The bundled sample keeps the test quick; docs/toolhop-reference.md
// gives the figures on the 182 real rows (TOOLGAUGE_TOOLHOP_TEAM_DATA, TOOLGAUGE_TOOLHOP_TEAM_ROWS).

/** The bundled sample; TOOLGAUGE_TOOLHOP_TEAM_DATA names another data file (e.g. the 182 real rows). */
const dataset = loadDatasetFile(process.env.TOOLGAUGE_TOOLHOP_TEAM_DATA ?? BUNDLED_SAMPLE);
const rows = dataset.entries.flatMap((e) => (e.ok ? [e.row] : []));
const byId = new Map(rows.map((r) => [String(r.id), r]));
const run = readConfig({});
const settings = readToolhopSettings({ TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLHOP_PRESET: 'reference' });
/** Rows compared (TOOLGAUGE_TOOLHOP_TEAM_ROWS; default the bundled sample's 11). */
const ROWS = Number(process.env.TOOLGAUGE_TOOLHOP_TEAM_ROWS ?? 12);
const AGENTS = 4;
const ROUNDS = 2;

interface Message {
  role: string;
  content?: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

async function chat(sim: SimServer, policy: string, body: Record<string, unknown>): Promise<Message> {
  const r = await fetch(`${sim.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: policy, temperature: 0.2, top_p: 0.9, max_tokens: 512, ...body }),
  });
  if (r.status !== 200) throw new Error(`simulator answered ${r.status}: ${await r.text()}`);
  return ((await r.json()) as { choices: Array<{ message: Message }> }).choices[0]!.message;
}

/** One member's tool loop as the reference runs it, and its answer scored on its own conversation. */
async function member(sim: SimServer, policy: string, row: ToolhopRow, style: string, seed: number, context = '') {
  const entries = toolEntries(row);
  const gold = Object.values(row.sub_task);
  const messages: Message[] = [
    { role: 'system', content: systemPrompt(style, { withContract: true }) },
    { role: 'user', content: userPrompt(row.question, context) },
  ];
  let exhausted = true;
  for (let turn = 0; turn < 9; turn++) {
    const m = await chat(sim, policy, { messages, tools: toolsPayload(entries), tool_choice: 'auto', seed });
    messages.push({
      role: 'assistant',
      content: m.content ?? null,
      ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
    });
    if (!m.tool_calls?.length) {
      exhausted = false;
      break;
    }
    for (const c of m.tool_calls) {
      const hop = entries.findIndex((e) => e.runtimeName === c.function.name);
      messages.push({ role: 'tool', tool_call_id: c.id, content: JSON.stringify(gold[hop] ?? null) });
    }
  }
  if (!/<answer>\s*([\s\S]*?)\s*<\/answer>/i.test(lastAssistantContent(messages as never)) || exhausted) {
    messages.push({ role: 'user', content: 'The tool-call budget is exhausted.' });
    const m = await chat(sim, policy, {
      messages: [
        { role: 'system', content: FINALIZER_SYSTEM_PROMPT },
        { role: 'user', content: finalizationContext(messages as never) },
      ],
      seed,
      temperature: 0,
    });
    messages.push({ role: 'assistant', content: m.content ?? '' });
  }
  const final = lastAssistantContent(messages as never);
  const predicted = extractAnswer(final);
  return {
    final,
    key: answerKey(predicted),
    correct: scoreAnswer(row.answer, final, previousToolContent(messages as never)).correct,
  };
}

type Member = Awaited<ReturnType<typeof member>>;

/** The first voter of the most common key (ties: the earliest voter). */
function winnerOf(voters: Member[]): Member {
  const counts = new Map<string, number>();
  for (const v of voters) counts.set(v.key, (counts.get(v.key) ?? 0) + 1);
  const best = Math.max(...counts.values());
  return voters.find((v) => counts.get(v.key) === best)!;
}

async function foreignTeam(sim: SimServer, policy: string, row: ToolhopRow, topology: string): Promise<boolean> {
  if (topology === 'independent')
    return winnerOf(
      await Promise.all(
        Array.from({ length: AGENTS }, (_, seed) => member(sim, policy, row, 'independent_langgraph', seed)),
      ),
    ).correct;
  let previous: Member[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const prev = previous;
    previous = await Promise.all(
      Array.from({ length: AGENTS }, (_, peer) => {
        const context = prev.length
          ? `Debate round ${round + 1}. Your previous answer:\n${prev[peer]!.final.slice(-1200)}\n\n` +
            "Other peers' previous-round answers:\n" +
            prev
              .filter((_, i) => i !== peer)
              .map((p) => `debater:\n${p.final.slice(-1200)}`)
              .join('\n\n')
              .slice(-5000) +
            '\n\nRevise only if peer evidence is stronger.'
          : '';
        return member(sim, policy, row, 'decentralized_langgraph', round * AGENTS + peer, context);
      }),
    );
  }
  return winnerOf(previous).correct;
}

describe("another runner's team draws toolgauge's team's coins, member by member", () => {
  it.each([
    ['independent', 'sim:coin'],
    ['decentralized', 'sim:coin?p=0.4&seed=11&wrong=diverse'],
    ...(process.env.TOOLGAUGE_TOOLHOP_TEAM_ROWS
      ? ([
          ['decentralized', 'sim:coin'],
          ['independent', 'sim:coin?p=0.5&seed=3'],
        ] as const)
      : []),
  ] as const)('%s on %s: the same verdict on every row', { timeout: 120_000 }, async (topology, policy) => {
    const sim = await startSimServer({ responders: { toolhop: toolhopResponder(async () => dataset) } });
    try {
      const client = new ModelClient({
        baseUrl: sim.url,
        model: policy,
        timeoutMs: 60_000,
        retries: 0,
        concurrency: 16,
      });
      const some = rows.slice(0, ROWS);
      const own = await Promise.all(
        some.map((row) =>
          runToolhopTeam(
            row,
            { client, sandbox: () => goldSandbox((id) => byId.get(id)), run, settings },
            { topology, agents: AGENTS, rounds: ROUNDS },
          ),
        ),
      );
      const theirs = await Promise.all(some.map((row) => foreignTeam(sim, policy, row, topology)));
      const ours = own.map((o) => o.result.correct);
      if (process.env.TOOLGAUGE_TOOLHOP_TEAM_ROWS)
        console.info(
          `${topology} ${policy}: ${ours.filter((x, i) => x === theirs[i]).length}/${some.length} rows agree`,
        );
      expect(theirs).toEqual(ours);
      // Both verdicts occur: agreement is not a team that is always right or always wrong.
      expect(new Set(ours).size).toBe(2);
    } finally {
      await sim.close();
    }
  });
});
