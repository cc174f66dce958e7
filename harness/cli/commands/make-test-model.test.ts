import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.ts';
import { sha256 } from '../../core/hash.ts';
import { readGgufHeader, tensorTypeOf, metaString } from '../../engine/gguf/reader.ts';
import { run } from './make-test-model.ts';

describe('toolgauge make-test-model', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgauge-mtm-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const make = async (argv: string[]) => {
    let out = '';
    const code = await run(argv, { stdout: { write: (s: string) => (out += s) } });
    return { code, out };
  };

  it('writes the asked type and template, says it is a random test model, and is reproducible from its seed', async () => {
    const a = join(dir, 'a.gguf');
    const { code, out } = await make([a, '--type', 'q8_0', '--template', 'llama3', '--seed', '9']);
    expect(code).toBe(0);
    expect(out).toContain(`sha256 ${sha256(readFileSync(a))}`);
    expect(out).toMatch(/random weights.*never a model's result/);
    const h = readGgufHeader(a);
    expect(tensorTypeOf(h)).toBe('Q8_0');
    expect(metaString(h, 'tokenizer.chat_template')).toContain('<|start_header_id|>');
    expect(metaString(h, 'tokenizer.ggml.pre')).toBe('llama-bpe');
    const b = join(dir, 'b.gguf');
    await make([b, '--type', 'q8_0', '--template', 'llama3', '--seed', '9']);
    expect(readFileSync(b)).toEqual(readFileSync(a));
    const c = join(dir, 'c.gguf');
    await make([c, '--type', 'q8_0', '--template', 'llama3', '--seed', '10']);
    expect(readFileSync(c)).not.toEqual(readFileSync(a));
    const d = join(dir, 'd.gguf');
    await make([d]);
    expect(tensorTypeOf(readGgufHeader(d))).toBe('F32');
    expect(metaString(readGgufHeader(d), 'tokenizer.ggml.pre')).toBe('qwen2');
  });

  it('refuses bad flags and paths in one line', async () => {
    await expect(make([join(dir, 'x.gguf'), '--type', 'q4_0'])).rejects.toThrow(/--type must be one of f32\|f16\|q8_0/);
    await expect(make([join(dir, 'x.gguf'), '--template', 'chatml'])).rejects.toThrow(
      /--template must be one of hermes\|llama3/,
    );
    await expect(make([join(dir, 'x.gguf'), '--seed', '1.5'])).rejects.toThrow(UsageError);
    await expect(make([])).rejects.toThrow(/expected one output path/);
    await expect(make([join(dir, 'no', 'such', 'dir', 'x.gguf')])).rejects.toThrow(/cannot write .*ENOENT/);
  });
});
