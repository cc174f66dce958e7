import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { run } from './parse.ts';

async function capture(argv: string[], input: string): Promise<{ code: number; out: string }> {
  let out = '';
  // split the input so multi-byte characters straddle chunks
  const bytes = Buffer.from(input, 'utf8');
  const chunks = [bytes.subarray(0, Math.floor(bytes.length / 2)), bytes.subarray(Math.floor(bytes.length / 2))];
  const code = await run(argv, { stdin: Readable.from(chunks), stdout: { write: (s: string) => (out += s) } });
  return { code, out };
}

describe('toolgauge parse', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgauge-parse-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints one JSON line with tier, format and all calls (lenient by default)', async () => {
    const text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "東京"}}\n</tool_call>\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>';
    const { code, out } = await capture([], text);
    expect(code).toBe(0);
    expect(out.endsWith('\n')).toBe(true);
    expect(out.trim().split('\n')).toHaveLength(1);
    const json = JSON.parse(out) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['tier', 'format', 'calls']);
    expect(json).toEqual({
      tier: 'strict',
      format: 'hermes',
      calls: [
        { name: 'get_weather', arguments: { city: '東京' } },
        { name: 'get_time', arguments: {} },
      ],
    });
  });

  it('--tier strict finds no call where lenient rescues one; exit 0 either way', async () => {
    const text = "Sure: {'name': 'get_weather', 'arguments': {'city': 'Paris'}}";
    const strict = await capture(['--tier', 'strict'], text);
    expect(strict.code).toBe(0);
    expect(JSON.parse(strict.out)).toEqual({ tier: 'none', format: null, calls: [] });
    const lenient = await capture(['--tier', 'lenient'], text);
    expect(JSON.parse(lenient.out)).toEqual({ tier: 'lenient', format: 'json', calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
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
    writeFileSync(openai, JSON.stringify([{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { days: { type: 'integer' } } } } }]));
    const bare = join(dir, 'functions.json');
    writeFileSync(bare, JSON.stringify([{ name: 'get_weather', parameters: { type: 'object', properties: { days: { type: 'integer' } } } }]));
    const text = '{"name": "get_weather", "arguments": {"days": "5"}}';
    for (const file of [openai, bare]) {
      const { out } = await capture(['--tools', file], text);
      expect(JSON.parse(out)).toEqual({ tier: 'lenient', format: 'json', calls: [{ name: 'get_weather', arguments: { days: 5 } }] });
    }
  });

  it('no call in prose: tier none, exit 0', async () => {
    const { code, out } = await capture([], 'I would call the weather tool but I need a city');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ tier: 'none', format: null, calls: [] });
  });

  it('bad flags and unreadable or invalid tool files are UsageErrors', async () => {
    await expect(capture(['--tier', 'loose'], '')).rejects.toThrow(UsageError);
    await expect(capture(['--format', 'gpt'], '')).rejects.toThrow(/--format must be one of auto\|hermes/);
    await expect(capture(['--bogus'], '')).rejects.toThrow(UsageError);
    await expect(capture(['--tools', join(dir, 'missing.json')], '')).rejects.toThrow(/cannot read/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ name: 'ok' }, { description: 'no name' }]));
    await expect(capture(['--tools', bad], '')).rejects.toThrow(/bad\.json: row 1/);
  });
});
