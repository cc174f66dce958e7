import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { run, USAGE } from './parse.ts';

async function capture(argv: string[], input: string): Promise<{ code: number; out: string }> {
  let out = '';
  // split the input so multi-byte characters straddle chunks
  const bytes = Buffer.from(input, 'utf8');
  const chunks = [bytes.subarray(0, Math.floor(bytes.length / 2)), bytes.subarray(Math.floor(bytes.length / 2))];
  const code = await run(argv, { stdin: Readable.from(chunks), stdout: { write: (s: string) => (out += s) } });
  return { code, out };
}

const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('toolgauge parse', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgauge-parse-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints one JSON line with tier, format, all calls, content and reasoning (lenient by default)', async () => {
    const text =
      '<think>The user wants two things.</think>Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "東京"}}\n</tool_call>\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>';
    const { code, out } = await capture([], text);
    expect(code).toBe(0);
    expect(out.endsWith('\n')).toBe(true);
    expect(out.trim().split('\n')).toHaveLength(1);
    const json = JSON.parse(out) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['tier', 'format', 'calls', 'content', 'reasoning']);
    expect(json).toEqual({
      tier: 'strict',
      format: 'hermes',
      calls: [
        { name: 'get_weather', arguments: { city: '東京' } },
        { name: 'get_time', arguments: {} },
      ],
      content: 'Sure.',
      reasoning: 'The user wants two things.',
    });
  });

  it('--tier strict finds no call where lenient rescues one; exit 0 either way', async () => {
    const text = "Sure: {'name': 'get_weather', 'arguments': {'city': 'Paris'}}";
    const strict = await capture(['--tier', 'strict'], text);
    expect(strict.code).toBe(0);
    expect(JSON.parse(strict.out)).toMatchObject({ tier: 'none', format: null, calls: [], content: text });
    const lenient = await capture(['--tier', 'lenient'], text);
    expect(JSON.parse(lenient.out)).toMatchObject({
      tier: 'lenient',
      format: 'json',
      calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
      content: 'Sure:',
    });
  });

  it('--format restricts the families tried', async () => {
    const text = 'get_weather\n{"city": "Paris"}';
    expect(JSON.parse((await capture(['--tier', 'strict', '--format', 'functionary'], text)).out).calls).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris' } },
    ]);
    expect(JSON.parse((await capture(['--tier', 'strict', '--format', 'auto'], text)).out).calls).toEqual([]);
  });

  it('--tools (OpenAI tools or bare function schemas) coerces argument types in the lenient tier', async () => {
    const openai = join(dir, 'tools.json');
    writeFileSync(
      openai,
      JSON.stringify([
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: { days: { type: 'integer' } } } },
        },
      ]),
    );
    const bare = join(dir, 'functions.json');
    writeFileSync(
      bare,
      JSON.stringify([
        { name: 'get_weather', parameters: { type: 'object', properties: { days: { type: 'integer' } } } },
      ]),
    );
    const text = 'Here: {"name": "get_weather", "arguments": {"days": "5"}}';
    for (const file of [openai, bare]) {
      const { out } = await capture(['--tools', file], text);
      expect(JSON.parse(out)).toMatchObject({
        tier: 'lenient',
        format: 'json',
        calls: [{ name: 'get_weather', arguments: { days: 5 } }],
      });
    }
  });

  it('no call in prose: tier none, exit 0', async () => {
    const { code, out } = await capture([], 'I would call the weather tool but I need a city');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({
      tier: 'none',
      format: null,
      calls: [],
      content: 'I would call the weather tool but I need a city',
    });
  });

  it('bad flags and unreadable or invalid tool files are UsageErrors', async () => {
    await expect(capture(['--tier', 'loose'], '')).rejects.toThrow(UsageError);
    await expect(capture(['--format', 'gpt'], '')).rejects.toThrow(/--format must be one of auto\|hermes/);
    await expect(capture(['--bogus'], '')).rejects.toThrow(UsageError);
    await expect(capture(['--tools', join(dir, 'missing.json')], '')).rejects.toThrow(/cannot read/);
    await expect(capture(['--jsonl', join(dir, 'missing.jsonl')], '')).rejects.toThrow(/--jsonl cannot read/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ name: 'ok' }, { description: 'no name' }]));
    await expect(capture(['--tools', bad], '')).rejects.toThrow(/bad\.json: row 1/);
  });

  it('the help text documents batch mode and its line shapes', () => {
    expect(USAGE).toMatch(/--jsonl FILE\|-/);
    expect(USAGE).toContain('{"id", "output", "format"?}');
    expect(USAGE).toContain('{"id", "format", "tier", "calls": [{"name", "arguments"}], "content", "reasoning"}');
  });
});

describe('toolgauge parse --jsonl', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgauge-parse-jsonl-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const input = [
    { id: 'a', output: '<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>' },
    { id: 2, output: 'get_weather\n{"city": "Paris"}', format: 'functionary' },
    { id: 'c', output: '[THINK]maybe [TOOL_CALLS]g[ARGS]{}[/THINK]No call needed.' },
    { id: 'd', output: "Sure: {'name': 'h', 'arguments': {}}" },
  ];
  const text = `${input.map((l) => JSON.stringify(l)).join('\n')}\n\n`;

  it('one output line per input line, in order, with format, calls, content and reasoning (stdin)', async () => {
    const { code, out } = await capture(['--jsonl', '-'], text);
    expect(code).toBe(0);
    const got = lines(out);
    expect(got.map((l) => l.id)).toEqual(['a', 2, 'c', 'd']);
    expect(Object.keys(got[0]!)).toEqual(['id', 'format', 'tier', 'calls', 'content', 'reasoning']);
    expect(got[0]).toMatchObject({
      format: 'hermes',
      calls: [{ name: 'f', arguments: { x: 1 } }],
      content: '',
      reasoning: '',
    });
    // the line's own format applies (functionary's implied first `>>>` only when the family is named)
    expect(got[1]).toMatchObject({
      format: 'functionary',
      calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
    });
    // the call inside [THINK] is reasoning, not a call
    expect(got[2]).toMatchObject({
      format: null,
      calls: [],
      content: 'No call needed.',
      reasoning: 'maybe [TOOL_CALLS]g[ARGS]{}',
    });
    expect(got[3]).toMatchObject({ format: 'json', tier: 'lenient', calls: [{ name: 'h', arguments: {} }] });
  });

  it('--tier applies to every line; a FILE works like stdin', async () => {
    const file = join(dir, 'in.jsonl');
    writeFileSync(file, text);
    const got = lines((await capture(['--jsonl', file, '--tier', 'strict'], '')).out);
    expect(got[3]).toMatchObject({ id: 'd', format: null, tier: 'none', calls: [] });
    expect(got[0]).toMatchObject({ id: 'a', tier: 'strict', format: 'hermes' });
  });

  it('a bad line prints an error line in its place, the others go on, exit 1', async () => {
    const bad = [
      '{"id": "x", "output": "<tool_call>{\\"name\\": \\"f\\", \\"arguments\\": {}}</tool_call>"}',
      'not json',
      '{"id": "y"}',
      '{"id": "z", "output": "hi", "format": "gpt"}',
    ];
    const { code, out } = await capture(['--jsonl', '-'], bad.join('\n'));
    expect(code).toBe(1);
    const got = lines(out);
    expect(got).toHaveLength(4);
    expect(got[0]).toMatchObject({ id: 'x', calls: [{ name: 'f', arguments: {} }] });
    expect(got[1]).toMatchObject({ id: null });
    expect(String(got[1]!.error)).toMatch(/stdin: line 2: not JSON/);
    expect(got[2]).toMatchObject({ id: 'y' });
    expect(String(got[2]!.error)).toMatch(/stdin: line 3: field output/);
    expect(String(got[3]!.error)).toMatch(/line 4: field format/);
  });
});
