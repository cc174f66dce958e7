// BFCL's verdicts on the self-written fixtures (fixtures/bfcl/data), one behaviour per test: expected verdicts
// are written from BFCL's rules as documented in docs/bfcl.md, not computed by the code under test.
import { describe, expect, it } from 'vitest';
import type { PyValue } from '../core/pyliteral/index.ts';
import { expandCategories } from './categories.ts';
import { loadCategory, type BfclCase } from './data.ts';
import { pyJsonLoads } from '../core/pyliteral/pyjson.ts';
import { checkSingleTurn } from './score.ts';
import { FIXTURE_DATA } from './testkit.ts';

const byId = new Map<string, BfclCase>(
  (['simple_python', 'parallel', 'irrelevance', 'live_relevance', 'simple_java'] as const).flatMap((c) =>
    loadCategory(FIXTURE_DATA, c).map((x) => [x.id, x] as [string, BfclCase]),
  ),
);
const need = (id: string) => byId.get(id)!;
const text = (v: string): PyValue => ({ t: 'str', v });
/** An FC result written as BFCL stores it: `[{name: "<arguments JSON>"}]`. */
const fc = (name: string, args: string): PyValue => ({
  t: 'list',
  items: [{ t: 'dict', entries: [[text(name), text(args)]] }],
});
const verdict = (id: string, result: PyValue, format: 'fc' | 'pythonic' | 'hermes', underscoreToDot = false) => {
  const v = checkSingleTurn(need(id), result, { format, underscoreToDot });
  return v.valid ? 'valid' : v.error_type;
};

describe('single-turn AST checking (BFCL semantics)', () => {
  it('accepts any allowed value, ignores case/spaces/punctuation in strings, allows omitting "" parameters', () => {
    expect(verdict('simple_python_0', text("[weather.get(city='paris')]"), 'pythonic')).toBe('valid');
    expect(verdict('simple_python_0', text("[weather.get(city='Paris,France', unit='Celsius')]"), 'pythonic')).toBe(
      'valid',
    );
    expect(verdict('simple_python_0', text("weather.get(city='Paris')"), 'pythonic')).toBe('valid'); // brackets added
  });

  it('names each failure as BFCL does', () => {
    expect(verdict('simple_python_0', text("[weather.get(city='Paris', unit='kelvin')]"), 'pythonic')).toBe(
      'value_error:string',
    );
    expect(verdict('simple_python_0', text('[weather.get()]'), 'pythonic')).toBe(
      'simple_function_checker:missing_required',
    );
    expect(verdict('simple_python_0', text("[weather.get(city='Paris', country='FR')]"), 'pythonic')).toBe(
      'simple_function_checker:unexpected_param',
    );
    expect(verdict('simple_python_0', text("[weather_get(city='Paris')]"), 'pythonic')).toBe(
      'simple_function_checker:wrong_func_name',
    );
    expect(verdict('simple_python_0', text("[weather.get(city='Paris'), weather.get(city='Paris')]"), 'pythonic')).toBe(
      'simple_function_checker:wrong_count',
    );
    expect(verdict('simple_python_0', text('I think it is sunny.'), 'pythonic')).toBe('ast_decoder:decoder_failed');
  });

  it('an FC result that is one dict (not a list) fails to decode, as iterating it gives its keys', () => {
    expect(
      verdict('simple_python_0', { t: 'dict', entries: [[text('weather.get'), text('{"city": "Paris"}')]] }, 'fc'),
    ).toBe('ast_decoder:decoder_failed');
  });

  it('dotted names: OpenAI-style FC names with underscores pass only under underscore_to_dot', () => {
    expect(verdict('simple_python_0', fc('weather_get', '{"city": "Paris"}'), 'fc', true)).toBe('valid');
    expect(verdict('simple_python_0', fc('weather_get', '{"city": "Paris"}'), 'fc', false)).toBe(
      'simple_function_checker:wrong_func_name',
    );
    expect(verdict('simple_python_0', fc('weather.get', '{"city": "Paris"}'), 'fc', false)).toBe('valid');
  });

  it('5 is not 5.0 for an integer, but an int is fine for a float (Python auto-conversion)', () => {
    expect(verdict('simple_python_2', fc('count', '{"n": 5}'), 'fc')).toBe('valid');
    expect(verdict('simple_python_2', fc('count', '{"n": 5.0}'), 'fc')).toBe('type_error:simple');
    expect(verdict('simple_python_2', text('[count(n=5.0)]'), 'pythonic')).toBe('type_error:simple');
    expect(verdict('simple_python_1', fc('circle_area', '{"radius": 5}'), 'fc')).toBe('valid');
    expect(verdict('simple_python_1', fc('circle_area', '{"radius": "5"}'), 'fc')).toBe('type_error:simple');
  });

  it('lists are compared element-wise after string standardisation; a tuple is not a list', () => {
    expect(verdict('simple_python_2', text("[count(n=5, tags=['A', ' b'])]"), 'pythonic')).toBe('valid');
    expect(verdict('simple_python_2', text("[count(n=5, tags=['b', 'a'])]"), 'pythonic')).toBe(
      'value_error:list/tuple',
    );
    expect(verdict('simple_python_2', text("[count(n=5, tags=('a', 'b'))]"), 'pythonic')).toBe('type_error:simple');
  });

  it('greedy parallel matching fails a correct answer in one order and passes it in another', () => {
    const a = "get_price(company='Acme', date='2024-01-01')";
    const z = "get_price(company='Zeta', date='2024-01-01')";
    expect(verdict('parallel_0', text(`[${a}, ${z}]`), 'pythonic')).toBe('valid');
    expect(verdict('parallel_0', text(`[${z}, ${a}]`), 'pythonic')).toBe(
      'parallel_function_checker_no_order:cannot_find_match',
    );
  });

  it('irrelevance: text, [] and an undecodable call attempt all count as no call; a decodable call fails', () => {
    expect(verdict('irrelevance_0', text('Boil it for 9 minutes.'), 'pythonic')).toBe('valid');
    expect(verdict('irrelevance_0', text('[]'), 'pythonic')).toBe('valid');
    expect(verdict('irrelevance_0', text("[weather.get(city='Paris']"), 'pythonic')).toBe('valid');
    expect(verdict('irrelevance_0', text("[weather.get(city='Paris')]"), 'pythonic')).toBe(
      'irrelevance_error:decoder_success',
    );
    expect(verdict('irrelevance_0', text('Boil it.'), 'fc')).toBe('valid');
    expect(verdict('irrelevance_0', fc('weather.get', '{"city": "x"}'), 'fc')).toBe(
      'irrelevance_error:decoder_success',
    );
  });

  it('relevance: any decodable call passes, whatever its arguments', () => {
    expect(verdict('live_relevance_0-0-0', text('[search(query=1)]'), 'pythonic')).toBe('valid');
    expect(verdict('live_relevance_0-0-0', text('no idea'), 'pythonic')).toBe('relevance_error:decoder_failed');
  });

  it('Java: arguments are strings converted by type (Array, long); a non-string is type_error:java', () => {
    expect(verdict('simple_java_0', fc('Calc.sum', '{"values": "new int[]{1, 2, 3}", "scale": "10L"}'), 'fc')).toBe(
      'valid',
    );
    expect(verdict('simple_java_0', fc('Calc.sum', '{"values": "new int[]{1, 2, 3}", "scale": "10"}'), 'fc')).toBe(
      'type_error:simple',
    );
    expect(verdict('simple_java_0', fc('Calc.sum', '{"values": [1, 2, 3], "scale": "10L"}'), 'fc')).toBe(
      'type_error:java',
    );
    // Prompt-mode Java is decoded by BFCL with tree-sitter: reported as undecided, never guessed.
    const v = checkSingleTurn(need('simple_java_0'), text('[Calc.sum(values="new int[]{1, 2, 3}", scale="10L")]'), {
      format: 'pythonic',
    });
    expect(v.undecided).toMatch(/tree-sitter/);
    expect(v.valid).toBe(false);
  });

  it('hermes: only <tool_call>\\n…\\n</tool_call> blocks count; unreadable blocks are dropped', () => {
    const block = (args: string) => `<tool_call>\n{"name": "weather.get", "arguments": ${args}}\n</tool_call>`;
    expect(verdict('simple_python_0', text(block('{"city": "Paris"}')), 'hermes')).toBe('valid');
    expect(verdict('simple_python_0', text(block('{"city": "Paris"}').replace(/\n/g, '')), 'hermes')).toBe(
      'simple_function_checker:wrong_count',
    );
    expect(verdict('simple_python_0', text(block('"{\\"city\\": \\"Paris\\"}"')), 'hermes')).toBe(
      'ast_decoder:decoder_failed',
    );
  });

  it('a BFCL crash is recorded, not thrown: a possible answer naming a function with no doc', () => {
    const c = need('simple_python_0');
    const broken: BfclCase = { ...c, category: 'multiple', possibleAnswer: pyJsonLoads('[{"nowhere": {"x": [1]}}]') };
    const v = checkSingleTurn(broken, text('[nowhere(x=1)]'), { format: 'pythonic' });
    expect(v.crash).toBeDefined();
    expect(v.error_type).toBe('checker_crash:TypeError');
  });
});

describe('categories', () => {
  it('expands BFCL groups and refuses out-of-scope and unknown names with the accepted values', () => {
    expect(expandCategories(['multi_turn'])).toEqual([
      'multi_turn_base',
      'multi_turn_long_context',
      'multi_turn_miss_func',
      'multi_turn_miss_param',
    ]);
    expect(expandCategories(['non_live', 'simple_python'])).toHaveLength(7);
    expect(() => expandCategories(['memory_kv'])).toThrow(/out of scope/);
    expect(() => expandCategories(['simple'])).toThrow(/unknown BFCL category 'simple'.*simple_python/);
  });
});
