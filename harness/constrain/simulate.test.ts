import { describe, expect, it } from 'vitest';
import { parseToolCalls, renderToolCalls, type ToolSchema } from '../parse/index.ts';
import { CONSTRAINABLE_FAMILIES as FAMILIES } from './families.ts';
import { constraintFor, type ConstraintSpec } from './requests.ts';
import { constrainedOutput, projectCall } from './simulate.ts';

const TOOLS: ToolSchema[] = [
  {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['location'],
    },
  },
  {
    name: 'get_time',
    parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
  },
];
const gold = [{ name: 'get_weather', arguments: { location: 'Paris' } }];

function spec(
  family: (typeof FAMILIES)[number],
  server: 'llamacpp' | 'vllm' = 'llamacpp',
  maxStringLength?: number,
): ConstraintSpec {
  const c = constraintFor(server, family, TOOLS, {
    transport: server === 'llamacpp' ? 'completions' : 'chat',
    ...(maxStringLength ? { maxStringLength } : {}),
  });
  if (!c.ok) throw new Error(c.reason);
  return c.spec;
}

describe('constrained decoding in the simulator', () => {
  it('prose without a trigger is left alone (abstention survives)', () => {
    const out = constrainedOutput('No tool needed, it is 4.', spec('hermes'), { key: 'a', intent: null });
    expect(out).toEqual({ text: 'No tool needed, it is 4.', forced: false, truncated: false, repetition: null });
  });

  it.each(FAMILIES)('%s: a conforming call (even a wrong one) is left alone', (family) => {
    const wrong = renderToolCalls([{ name: 'get_time', arguments: { timezone: 'Paris' } }], family);
    expect(constrainedOutput(wrong, spec(family), { key: 'b', intent: null }).forced).toBe(false);
  });

  it.each(FAMILIES)('%s: a garbled attempt becomes the intended call, which the strict parser then reads', (family) => {
    const garbled = '<tool_call>\nname=get_weather; arguments: location -> Paris\n</tool_call>';
    // the text before the attempt is free and stays; families whose strict format is the whole output get none
    const prose = ['llama_json', 'llama_pythonic', 'functionary'].includes(family) ? '' : 'Let me look. ';
    const out = constrainedOutput(`${prose}${garbled}`, spec(family), { key: 'c', intent: gold, degeneration: 0 });
    expect(out.forced).toBe(true);
    expect(out.text.startsWith(prose)).toBe(true);
    expect(parseToolCalls(out.text, { tier: 'strict', format: family, tools: TOOLS }).calls).toEqual(gold);
  });

  it('under structural tags too (vLLM / SGLang)', () => {
    const out = constrainedOutput(
      '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris",}}\n</tool_call>',
      spec('hermes', 'vllm'),
      { key: 'd', intent: null, degeneration: 0 },
    );
    expect(out.forced).toBe(true);
    expect(parseToolCalls(out.text, { tier: 'strict', format: 'hermes', tools: TOOLS }).calls).toEqual(gold);
  });

  it('projection keeps a decision: an unlisted name goes to the closest listed one, values take the declared types', () => {
    expect(
      projectCall({ name: 'get_weather_now', arguments: { location: 7, unit: 'Celsius', extra: 1 } }, TOOLS),
    ).toEqual({ name: 'get_weather', arguments: { location: '7', unit: 'celsius' } });
    expect(projectCall({ name: 'get_time', arguments: {} }, TOOLS)).toEqual({
      name: 'get_time',
      arguments: { timezone: '' },
    });
  });

  it('unbounded strings in a forced call can loop until the budget: truncated, reported', () => {
    const out = constrainedOutput('<tool_call>\nname=get_weather\n</tool_call>', spec('hermes'), {
      key: 'e',
      intent: gold,
      degeneration: 1,
      maxChars: 300,
    });
    expect(out.truncated).toBe(true);
    expect(out.text.length).toBe(300);
    expect(out.repetition).toMatchObject({ tool: 'get_weather', argument: 'location', unit: 'Paris ', bounded: false });
    expect(parseToolCalls(out.text, { tier: 'lenient', tools: TOOLS }).calls).toEqual([]);
  });

  it('a string bound stops the loop: the call closes, well-formed, with the looped value', () => {
    const out = constrainedOutput('<tool_call>\nname=get_weather\n</tool_call>', spec('hermes', 'llamacpp', 16), {
      key: 'e',
      intent: gold,
      degeneration: 1,
    });
    expect(out.truncated).toBe(false);
    expect(out.repetition).toMatchObject({ bounded: true });
    const calls = parseToolCalls(out.text, { tier: 'strict', format: 'hermes', tools: TOOLS }).calls;
    expect(calls[0]!.arguments.location).toBe('Paris Paris Pari');
  });

  it('the degeneration draw is seeded: same key, same outcome; the rate follows the probability', () => {
    const s = spec('hermes');
    const run = (k: string) =>
      constrainedOutput('<tool_call>\nx\n</tool_call>', s, { key: k, intent: gold, degeneration: 0.3 }).repetition !==
      null;
    expect(run('k1')).toBe(run('k1'));
    const n = 400;
    const hits = [...Array(n).keys()].filter((i) => run(`case-${i}`)).length;
    expect(hits / n).toBeGreaterThan(0.2);
    expect(hits / n).toBeLessThan(0.4);
  });
});
