/**
 * The simulated constrained decoder never writes what the constraint forbids. The oracle is hand-made: grammars
 * whose admitted strings are few and listed here by hand, checked by string membership — not by the recognizer
 * the simulator itself uses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderToolCalls, type ToolSchema } from '../parse/index.ts';
import { constraintOfRequest } from './from-request.ts';
import { LLAMACPP_TRIGGER_WORD } from './requests.ts';
import { constrainedOutput } from './simulate.ts';

const TOOLS: ToolSchema[] = [
  {
    name: 'get_weather',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
  { name: 'other_tool', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
];
const gold = [{ name: 'get_weather', arguments: { location: 'Paris' } }];

// Only other_tool, with q "a" or "b": exactly these two strings, from the trigger on.
const ONLY_OTHER =
  'root ::= "<tool_call>\\n{\\"name\\": \\"other_tool\\", \\"arguments\\": {\\"q\\": \\"" [ab] "\\"}}\\n</tool_call>"';
const ADMITTED = ['a', 'b'].map((q) => `<tool_call>\n{"name": "other_tool", "arguments": {"q": "${q}"}}\n</tool_call>`);

const lazy = {
  model: 'm',
  prompt: 'p',
  grammar: ONLY_OTHER,
  grammar_lazy: true,
  grammar_triggers: [{ type: LLAMACPP_TRIGGER_WORD, value: '<tool_call>' }],
};
const whole = { model: 'm', prompt: 'p', grammar: ONLY_OTHER };

/** Under the lazy grammar: free text up to the first trigger, then one admitted string to the end — or no trigger at all. */
function lazyAllows(text: string): boolean {
  const at = text.indexOf('<tool_call>');
  return at < 0 || ADMITTED.includes(text.slice(at));
}

const RAWS = [
  renderToolCalls(gold, 'hermes'),
  `I will check. ${renderToolCalls(gold, 'hermes')}`,
  '<tool_call>\nname=get_weather; arguments: location -> Paris\n</tool_call>',
  '<tool_call>\n{"name": "other_tool", "arguments": {"q": "zzz"}}\n</tool_call>',
  '{"name": "get_weather", "arguments": {"location": "Paris"}}',
  'No tool is needed.',
];

describe('the simulated constrained decoder stays inside the grammar', () => {
  it.each(RAWS)('a lazy grammar admitting only another tool: never the gold call (%#)', (raw) => {
    const spec = constraintOfRequest(lazy, 'hermes', TOOLS)!;
    for (const intent of [gold, null]) {
      const out = constrainedOutput(raw, spec, { key: 'k', intent, degeneration: 0 });
      expect(lazyAllows(out.text), JSON.stringify(out.text)).toBe(true);
      expect(out.text).not.toContain('get_weather');
    }
  });

  it('the prose before a trigger stays, and a forced call is one the grammar admits (not a refusal only)', () => {
    const spec = constraintOfRequest(lazy, 'hermes', TOOLS)!;
    const out = constrainedOutput(`I will check. ${renderToolCalls(gold, 'hermes')}`, spec, {
      key: 'k',
      intent: gold,
      degeneration: 0,
    });
    expect(out.forced).toBe(true);
    expect(ADMITTED.map((a) => `I will check. ${a}`)).toContain(out.text);
  });

  it.each(RAWS)('a grammar that is not lazy binds the whole output, prose included (%#)', (raw) => {
    const spec = constraintOfRequest(whole, 'hermes', TOOLS)!;
    const out = constrainedOutput(raw, spec, { key: 'k', intent: gold, degeneration: 1 });
    expect(ADMITTED).toContain(out.text);
  });

  it('any text, any intent, any degeneration: the output is admitted', () => {
    const spec = constraintOfRequest(lazy, 'hermes', TOOLS)!;
    const piece = fc.constantFrom(
      '<tool_call>',
      '</tool_call>',
      '\n',
      '{"name": "get_weather", "arguments": {"location": "Paris"}}',
      '{"name": "other_tool", "arguments": {"q": "a"}}',
      'ok ',
      '{',
      '"',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 6 }),
        fc.boolean(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (parts, withIntent, p) => {
          const out = constrainedOutput(parts.join(''), spec, {
            key: parts.join('|'),
            intent: withIntent ? gold : null,
            degeneration: p,
            maxChars: 200,
          });
          return lazyAllows(out.text);
        },
      ),
      { numRuns: 150, seed: 7 },
    );
  });
});
