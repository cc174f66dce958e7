import { describe, expect, it } from 'vitest';
import { mapCase } from './cases.ts';

const meta = { suite: 'my-eval', id: '1', trial: 0, error: null, pass: false, scores: { tool_calls: 0.5 } };
const made = (name: string, args: Record<string, unknown> | null, json = JSON.stringify(args)) => ({
  name,
  arguments: args,
  argumentsJson: json,
  result: '',
  error: null,
});
const TITLE = 'Expected tool calls beside the calls made';

describe("the viewer's describeEval case: expected tool calls beside the calls made", () => {
  it('pairs by tool name in order, marks a call never made and a call not expected; a predicate shows as "(function)"', () => {
    const m = mapCase({
      suite: 'my-eval',
      meta,
      trace: {
        expectedTools: [
          { name: 'multiply', arguments: { a: 6, b: 7 } },
          { name: 'add', arguments: '(function)' },
          { name: 'lookup' },
        ],
        output: {
          toolCalls: [made('add', { a: 1, b: 2 }), made('multiply', { a: 6, b: 5 }), made('add', null, '{"a":')],
        },
      },
    });
    expect(m.detail.sections.find((s) => s.title === TITLE)).toEqual({
      kind: 'table',
      title: TITLE,
      head: ['expected #', 'expected call', 'call #', 'call made'],
      rows: [
        ['1', 'multiply({"a":6,"b":7})', '2', 'multiply({"a":6,"b":5})'],
        ['2', 'add((function))', '1', 'add({"a":1,"b":2})'],
        ['3', 'lookup()', '', '(not called)'],
        ['', '(not expected)', '3', 'add({"a":)'],
      ],
    });
    expect(m.problems).toEqual([]);
  });

  it('a case without expectedTools has no such section; a malformed one is a problem naming the field', () => {
    const none = mapCase({ suite: 'my-eval', meta, trace: { output: { toolCalls: [made('add', {})] } } });
    expect(none.detail.sections.some((s) => s.title === TITLE)).toBe(false);
    const bad = mapCase({ suite: 'my-eval', meta, trace: { expectedTools: [{ nmae: 'x' }], output: {} } });
    expect(bad.detail.sections.some((s) => s.title === TITLE)).toBe(false);
    expect(bad.problems).toEqual([{ field: 'trace.expectedTools[0].name', message: expect.any(String) }]);
  });
});
