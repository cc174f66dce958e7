// A user's agent, registered from a module file as `--agent-module FILE` does, runs a Maze task through the same
// session and judge as the built-in agents.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { agentFactory, agentNames, loadAgentModule, registerAgent } from '../agent/registry.ts';
import { runMazeInstance } from './run-instance.ts';
import { DEFAULT_CASES_DIR, loadMazeTasks } from './task.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-agent-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A throwaway agent: calls the first tool it is offered once, with the endpoint's model as an argument, then answers.
const MODULE = `
export default {
  name: 'throwaway',
  description: 'calls the first tool once, then answers',
  create(endpoint) {
    return {
      async run(input) {
        const tools = input.executor.tools();
        const first = tools[0].function.name;
        const out = await input.executor.execute({ id: 'c1', name: first, argumentsJson: JSON.stringify({ probe: endpoint.model }) });
        const messages = [
          { role: 'system', content: input.system },
          { role: 'user', content: input.user },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: first, arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: out.content },
          { role: 'assistant', content: 'throwaway answer ' + input.ctx.instance },
        ];
        return { messages, turns: 2, usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }, exhausted: false };
      },
    };
  },
};
`;

describe('an agent from a user module', () => {
  it('loads, registers under its name, and runs a Maze task: its calls reach the session, its answer and usage the files', async () => {
    const file = join(dir, 'my-agent.mjs');
    writeFileSync(file, MODULE);
    expect(await loadAgentModule(pathToFileURL(file).href)).toBe('throwaway');
    expect(agentNames()).toEqual(expect.arrayContaining(['openai', 'vllm', 'mcp', 'anthropic', 'throwaway']));
    const task = loadMazeTasks(DEFAULT_CASES_DIR, ['c1'])[0]!;
    const agent = agentFactory('throwaway')!.create({
      model: 'my-model',
      baseUrl: 'http://127.0.0.1:1/v1',
      apiKey: 'k',
      timeoutMs: 1,
      retries: 0,
      concurrency: 1,
      openai: () => {
        throw new Error('unused');
      },
    });
    const r = await runMazeInstance(task, 'P0', { agent, model: 'my-model', maxTurns: 5, judgeMode: 'compat' });
    expect(r.error).toBeNull();
    expect(r.inference.trace).toHaveLength(1);
    expect(r.inference.trace[0]!.arguments_json).toBe('{"probe":"my-model"}');
    expect(r.inference.final_answer).toBe(`throwaway answer maze:${task.id}:P0`);
    expect(r.inference.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    expect(r.turns).toBe(2);
  });

  it('refuses a module without an agent, a built-in name and a bad name', async () => {
    const empty = join(dir, 'empty.mjs');
    writeFileSync(empty, 'export const x = 1;\n');
    await expect(loadAgentModule(pathToFileURL(empty).href)).rejects.toThrow(/no default export/);
    expect(() =>
      registerAgent({
        name: 'openai',
        create: () => ({
          run: async () => ({
            messages: [],
            turns: 0,
            usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
            exhausted: true,
          }),
        }),
      }),
    ).toThrow(/built in/);
    expect(() => registerAgent({ name: 'a b', create: () => ({}) as never })).toThrow(/letters, digits/);
  });
});
