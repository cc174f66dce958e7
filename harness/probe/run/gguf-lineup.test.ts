import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestModel } from '../../engine/gguf/test-model.ts';
import { checkQuantizationPair } from '../../calls/lineup/lineup.ts';
import type { ModelEntry } from './env.ts';
import { ggufRunIdentity, ggufTemplate, withGgufQuantization } from './gguf-lineup.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-gguf-lineup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, o: Parameters<typeof buildTestModel>[0]) => {
  const p = join(dir, name);
  writeFileSync(p, buildTestModel(o));
  return p;
};
const F32 = file('a-f32.gguf', { type: 'F32', template: 'hermes', seed: 1 });
const Q8 = file('a-q8.gguf', { type: 'Q8_0', template: 'hermes', seed: 1 });
const F16 = file('a-f16.gguf', { type: 'F16', template: 'hermes', seed: 1 });
const L3 = file('b-q8.gguf', { type: 'Q8_0', template: 'llama3', seed: 1 });
const entry = (label: string, path: string, extra: Partial<ModelEntry> = {}): ModelEntry => ({
  label,
  model: `gguf:${path}`,
  baseUrl: undefined,
  apiKeyEnv: undefined,
  template: undefined,
  family: undefined,
  server: undefined,
  quantization: undefined,
  quantizationOf: undefined,
  ...extra,
});

describe('gguf: lineups read from the files', () => {
  it('pairs the narrower weight types of one model with its widest one; another model stays unpaired', () => {
    const out = withGgufQuantization([
      entry('q8', Q8),
      entry('f16', F16),
      entry('f32', F32),
      entry('other', L3),
      { ...entry('sim', ''), model: 'sim:oracle' },
    ]);
    expect(out.map((m) => [m.label, m.quantization, m.quantizationOf])).toEqual([
      ['q8', 'Q8_0', 'f32'],
      ['f16', 'F16', 'f32'],
      ['f32', 'F32', undefined],
      ['other', 'Q8_0', undefined],
      ['sim', undefined, undefined],
    ]);
  });

  it('what an entry says wins', () => {
    const [q8] = withGgufQuantization([
      entry('q8', Q8, { quantizationOf: 'f16', quantization: 'mine' }),
      entry('f16', F16),
      entry('f32', F32),
    ]);
    expect([q8!.quantization, q8!.quantizationOf]).toEqual(['mine', 'f16']);
  });

  it('identity from the file: one model quantized passes the guard, a different tokenizer and template do not', () => {
    const id = (label: string, p: string) => ggufRunIdentity(entry(label, p))!;
    expect(checkQuantizationPair(id('f32', F32), id('q8', Q8))).toEqual({ ok: true });
    const other = checkQuantizationPair(id('f32', F32), id('other', L3));
    expect(other.ok).toBe(false);
    expect(ggufRunIdentity({ label: 'x', model: 'sim:oracle' })).toBeNull();
  });

  it("the file's own chat template, prepared for the completions transport", () => {
    const t = ggufTemplate(F32, '2026-01-15')!;
    expect(t.family).toBe('hermes');
    expect(t.file).toMatch(/tokenizer\.chat_template/);
    expect(ggufTemplate(L3, '2026-01-15')!.sha256).not.toBe(t.sha256);
  });
});
