import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat.ts';
import { fromRoot } from '../core/paths.ts';
import { ModelClient } from '../model/client.ts';
import { ModelCallError } from '../model/types.ts';
import { startSimServer, type SimServer } from '../sim/server.ts';
import { BUNDLED_SAMPLE, loadDatasetFile } from './dataset.ts';
import { FINALIZER_SYSTEM_PROMPT, systemPrompt } from './prompts.ts';
import type { ToolhopRow } from './row.ts';
import { scoreAnswer } from './score.ts';
import { wrongAnswer } from './sim-policy.ts';
import { toolhopResponder } from './sim-responder.ts';
import { toolEntries, toolsPayload } from './tools.ts';

const rows = new Map(loadDatasetFile(BUNDLED_SAMPLE).entries.flatMap((e) => (e.ok ? [[e.id, e.row] as const] : [])));
let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({
    responders: { toolhop: toolhopResponder(async () => loadDatasetFile(BUNDLED_SAMPLE)) },
  });
});
afterAll(() => sim.close());

const client = (model: string) =>
  new ModelClient({ baseUrl: sim.url, model, timeoutMs: 2000, retries: 0, concurrency: 4 });

/** Drive the simulator like the agent loop does, answering each tool call with a placeholder result. */
async function converse(model: string, row: ToolhopRow, agent = '0') {
  const c = client(model);
  const tools = toolsPayload(toolEntries(row));
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt('single', { withContract: true }) },
    { role: 'user', content: row.question },
  ];
  const called: string[] = [];
  for (let turn = 0; turn < 12; turn++) {
    const r = await c.chat({ messages, tools }, { instance: `toolhop:${row.id}`, agent });
    messages.push({
      role: 'assistant',
      content: r.content,
      ...(r.tool_calls.length ? { tool_calls: r.tool_calls } : {}),
    });
    if (!r.tool_calls.length) return { final: r.content ?? '', called };
    for (const tc of r.tool_calls) {
      called.push(tc.function.name);
      expect(() => JSON.parse(tc.function.arguments)).not.toThrow();
      messages.push({ role: 'tool', tool_call_id: tc.id, content: '"result"' });
    }
  }
  throw new Error('no answer');
}

describe('the simulator over HTTP (ToolHop policies)', () => {
  it('sim:oracle calls every hop tool in order, then answers the gold in <answer> tags', async () => {
    for (const row of rows.values()) {
      const { final, called } = await converse('sim:oracle', row);
      expect(called).toEqual(toolEntries(row).map((e) => e.runtimeName));
      expect(final).toBe(`<answer>${row.answer}</answer>`);
    }
  });

  it('sim:untagged answers without the tag; the final-answer call gets it', async () => {
    const row = rows.get('7')!;
    const { final } = await converse('sim:untagged', row);
    expect(final).not.toMatch(/<answer>/);
    const r = await client('sim:untagged').chat(
      {
        messages: [
          { role: 'system', content: FINALIZER_SYSTEM_PROMPT },
          { role: 'user', content: 'x' },
        ],
      },
      { instance: 'toolhop:7' },
    );
    expect(r.content).toBe(`<answer>${row.answer}</answer>`);
  });

  it('sim:naive answers after the first tool result; sim:coin with p=0 answers wrong without tools, p=1 like the oracle', async () => {
    const row = rows.get('2')!;
    const naive = await converse('sim:naive', row);
    expect(naive.called).toHaveLength(1);
    expect(naive.final).toBe('<answer>result</answer>');
    const lose = await converse('sim:coin?p=0', row);
    expect(lose.called).toEqual([]);
    expect(scoreAnswer(row.answer, lose.final, '').correct).toBe(false);
    const win = await converse('sim:coin?p=1', row);
    expect(win.final).toBe(`<answer>${row.answer}</answer>`);
    expect(win.called.length).toBeGreaterThan(0);
    // tools=none: the same coin, answered at once
    const direct = await converse('sim:coin?p=1&tools=none', row);
    expect(direct).toEqual({ final: `<answer>${row.answer}</answer>`, called: [] });
    expect((await converse('sim:coin?p=0&tools=none', row)).final).toBe(lose.final);
  });

  it('sim:coin gives every agent the same wrong value for an instance (binomial votes)', async () => {
    const row = rows.get('5')!;
    const finals = new Set<string>();
    for (const agent of ['0', '1', '2', '3', '4', '5']) {
      const r = await converse('sim:coin?p=0', row, agent);
      finals.add(r.final);
    }
    expect(finals.size).toBe(1);
  });

  it('refuses an unknown instance (422, not retried) and serves /v1/models', async () => {
    const err = await client('sim:oracle')
      .chat({ messages: [{ role: 'user', content: 'x' }] }, { instance: 'toolhop:nope' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect(err.message).toMatch(/422.*no ToolHop row 'nope'/);
    const models = (await (await fetch(`${sim.url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data[0]!.id).toBe('sim:oracle');
  });
});

describe('wrong answers', () => {
  const shared = fromRoot('..', 'shared', 'data', 'toolhop', 'ToolHop.sample.json');
  const golds = [
    ...[...rows.values()].map((r) => r.answer),
    ...(existsSync(shared)
      ? (JSON.parse(readFileSync(shared, 'utf8')) as Array<{ answer: string }>).map((r) => r.answer)
      : []),
    's',
    '0',
    '1.0',
    '-3',
    '2017-10-13',
    "O'Sullivan",
    '[1, 2]',
    '',
  ];
  it('are never scored correct by the literal or substring rules', () => {
    for (const g of golds)
      if (g) expect(scoreAnswer(g, `<answer>${wrongAnswer(g)}</answer>`, '').correct, g).toBe(false);
  });
});
