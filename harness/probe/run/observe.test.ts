import { describe, expect, it } from 'vitest';
import { observeChat, observeText } from './observe.ts';

const tools = [{ name: 'get_time', parameters: { type: 'object', properties: { timezone: { type: 'string' } } } }];

describe('what each parser tier sees', () => {
  it('chat: the strict tier is exactly the server tool_calls', () => {
    const o = observeChat(
      {
        content: null,
        tool_calls: [{ name: 'get_time', arguments: '{"timezone": "UTC"}' }],
        finish_reason: 'tool_calls',
      },
      { family: null, tools },
    );
    expect(o.strict).toMatchObject({
      calls: [{ name: 'get_time', arguments: { timezone: 'UTC' } }],
      tier: 'server',
      attempted: true,
    });
    expect(o.lenient.calls).toEqual(o.strict.calls);
    expect(o.parseTier).toBe('strict');
  });

  it('chat: a call left in content is found by the lenient tier only (a parser gap)', () => {
    const o = observeChat(
      {
        content: '```json\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n```',
        tool_calls: [],
        finish_reason: 'stop',
      },
      { family: 'hermes', tools },
    );
    expect(o.strict.calls).toEqual([]);
    expect(o.strict.attempted).toBe(true);
    expect(o.lenient.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'UTC' } }]);
    expect(o.parseTier).toBe('lenient');
  });

  it('chat: tool_calls with malformed arguments fail strictly and are repaired leniently', () => {
    const o = observeChat(
      {
        content: null,
        tool_calls: [{ name: 'get_time', arguments: "{'timezone': 'UTC'}" }],
        finish_reason: 'tool_calls',
      },
      { family: null, tools },
    );
    expect(o.strict.calls).toEqual([]);
    expect(o.strict.notes).toEqual(['tool_calls arguments are not a JSON object']);
    expect(o.lenient.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'UTC' } }]);
  });

  it('completions: strict = the family format only; truncation by max tokens is recorded', () => {
    const native = observeText(
      '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n</tool_call>',
      'stop',
      { family: 'hermes', tools },
    );
    expect(native.strict.calls).toHaveLength(1);
    expect(native.parseTier).toBe('strict');
    const cut = observeText('<tool_call>\n{"name": "get_time", "argu', 'length', { family: 'hermes', tools });
    expect([cut.strict.calls.length, cut.strict.attempted, cut.strict.truncated, cut.lenient.truncated]).toEqual([
      0,
      true,
      true,
      true,
    ]);
    const prose = observeText('It is noon in London.', 'stop', { family: 'hermes', tools });
    expect([prose.strict.attempted, prose.lenient.attempted, prose.parseTier]).toEqual([false, false, 'none']);
  });
});
