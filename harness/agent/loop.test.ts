import { describe, expect, it } from 'vitest';
import type { ToolExecution, ToolExecutor, ToolInvocation } from '../core/chat.ts';
import { LoopError, pyJsonDumps, runToolLoop, validJsonArguments } from './loop.ts';
import { scriptedClient, type SeenCall } from './team/testing.ts';

/** An executor that records what it ran and answers `name(args)`. */
function recorder(): ToolExecutor & { ran: ToolInvocation[] } {
  const ran: ToolInvocation[] = [];
  return {
    ran,
    tools: () => [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
    async execute(call: ToolInvocation): Promise<ToolExecution> {
      ran.push(call);
      return { content: `${call.name}(${call.argumentsJson})`, meta: { outcome: 'ok' } };
    },
  };
}
const call = (id: string, args: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'f', arguments: args },
});
const ctx = { instance: 't:1' };

describe('the tool loop', () => {
  it('runs every call of a turn in order, feeds results back by id, and stops at the first answer without calls', async () => {
    const { client, calls } = scriptedClient((c) =>
      c.messages.filter((m) => m.role === 'tool').length === 0
        ? { tool_calls: [call('a', '{"x":1}'), call('b', '{"x":2}')] }
        : { content: '<answer>3</answer>' },
    );
    const ex = recorder();
    const t = await runToolLoop({ client, ctx, system: 'S', user: 'U', executor: ex, maxTurns: 5 });
    expect(ex.ran.map((r) => r.id)).toEqual(['a', 'b']);
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(t.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['a', 'b']);
    expect(t.exhausted).toBe(false);
    expect(calls).toHaveLength(2);
    expect(t.usage.total_tokens).toBe(26);
  });

  it('continues a conversation given as messages; a leading system message replaces the system prompt', async () => {
    const { client, calls } = scriptedClient(() => ({ content: '<answer>ok</answer>' }));
    const history = [
      { role: 'user' as const, content: 'first' },
      { role: 'assistant' as const, content: 'noted' },
      { role: 'user' as const, content: 'second' },
    ];
    await runToolLoop({ client, ctx, system: 'S', user: history, executor: recorder(), maxTurns: 2 });
    expect(calls[0]!.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'S'],
      ['user', 'first'],
      ['assistant', 'noted'],
      ['user', 'second'],
    ]);
    await runToolLoop({
      client,
      ctx,
      system: 'S',
      user: [{ role: 'system', content: 'Own' }, ...history],
      executor: recorder(),
      maxTurns: 2,
    });
    expect(calls[1]!.messages.map((m) => m.content)).toEqual(['Own', 'first', 'noted', 'second']);
    expect(history).toHaveLength(3);
  });

  it('passes raw malformed arguments to the executor but keeps the history valid JSON', async () => {
    const { client, calls } = scriptedClient((c) =>
      c.messages.some((m) => m.role === 'tool') ? { content: 'done' } : { tool_calls: [call('a', '{"x": 1,')] },
    );
    const ex = recorder();
    await runToolLoop({ client, ctx, system: 'S', user: 'U', executor: ex, maxTurns: 3 });
    expect(ex.ran[0]!.argumentsJson).toBe('{"x": 1,');
    const history = (calls[1] as SeenCall).messages.find((m) => m.tool_calls)!.tool_calls![0]!.function.arguments;
    expect(JSON.parse(history)).toEqual({ _malformed_arguments: '{"x": 1,' });
  });

  it('uses at most maxTurns requests, then asks the finalizer when it says so', async () => {
    const { client, calls } = scriptedClient((c) =>
      c.messages[0]!.content === 'FINAL'
        ? { content: '<answer>x</answer>' }
        : { tool_calls: [call(`c${c.messages.length}`, '{}')] },
    );
    const t = await runToolLoop({
      client,
      ctx,
      system: 'S',
      user: 'U',
      executor: recorder(),
      maxTurns: 3,
      finalizer: {
        needed: (_m, exhausted) => exhausted,
        request: (m) => ({
          pending: { role: 'user', content: 'answer now' },
          call: [
            { role: 'system', content: 'FINAL' },
            { role: 'user', content: String(m.length) },
          ],
        }),
      },
    });
    expect(calls).toHaveLength(4);
    expect(t.exhausted).toBe(true);
    expect(t.forcedFinal).toBe(true);
    expect(t.modelCalls.map((m) => m.purpose)).toEqual(['turn', 'turn', 'turn', 'final_answer']);
    expect(t.messages.at(-1)).toEqual({ role: 'assistant', content: '<answer>x</answer>' });
  });

  it('an endpoint that fails for good raises LoopError with the partial trace', async () => {
    const { client } = scriptedClient((c) =>
      c.messages.some((m) => m.role === 'tool') ? 'fail' : { tool_calls: [call('a', '{}')] },
    );
    const err = await runToolLoop({ client, ctx, system: 'S', user: 'U', executor: recorder(), maxTurns: 5 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LoopError);
    expect((err as LoopError).trace.tools).toHaveLength(1);
  });

  it('prompt-based tool calling: tools in the system prompt, calls parsed from text, results in one user message', async () => {
    const { client, calls } = scriptedClient((c) =>
      c.messages.length > 2
        ? { content: 'ok' }
        : { content: '<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>' },
    );
    const ex = recorder();
    await runToolLoop({ client, ctx, system: 'S', user: 'U', executor: ex, maxTurns: 3, callStyle: 'prompt' });
    expect(calls[0]!.tools).toBeUndefined();
    expect(String(calls[0]!.messages[0]!.content)).toContain('{"name":"f"');
    expect(ex.ran.map((r) => JSON.parse(r.argumentsJson))).toEqual([{ x: 1 }]);
    expect(calls[1]!.messages.at(-1)!.role).toBe('user');
  });

  it("lays out JSON as Python's json.dumps does (the reference runner's histories)", () => {
    expect(pyJsonDumps({ a: [1, 'x'], b: { c: null } })).toBe('{"a": [1, "x"], "b": {"c": null}}');
    expect(validJsonArguments('')).toBe('{}');
  });
});

describe('bounds', () => {
  it('runs at most maxToolCallsPerTurn calls of one turn and answers the rest with an error (every call id answered)', async () => {
    const many = Array.from({ length: 50 }, (_, i) => call(`c${i}`, '{}'));
    const { client, calls } = scriptedClient((c) =>
      c.messages.some((m) => m.role === 'tool') ? { content: 'done' } : { tool_calls: many },
    );
    const ex = recorder();
    const t = await runToolLoop({
      client,
      ctx,
      system: 'S',
      user: 'U',
      executor: ex,
      maxTurns: 3,
      maxToolCallsPerTurn: 4,
    });
    expect(ex.ran).toHaveLength(4);
    const answered = calls[1]!.messages.filter((m) => m.role === 'tool');
    expect(answered).toHaveLength(50);
    expect(answered[10]!.content).toMatch(/not run: this turn made 50 tool calls and at most 4 run per turn/);
    expect(t.tools.filter((x) => x.meta?.outcome === 'refused_over_limit')).toHaveLength(46);
  });
});
