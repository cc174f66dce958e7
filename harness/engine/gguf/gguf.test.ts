import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../core/errors.ts';
import { renderChat } from '../../templates/render.ts';
import { TEST_TEMPLATES } from './chat-templates.ts';
import { encodeF16, encodeQ8_0 } from './encode.ts';
import { readGgufHeaderFromBytes, tensorTypeOf, factsOfHeader } from './reader.ts';
import { buildTestModel, gpt2ByteChars, testVocabulary } from './test-model.ts';
import { GGML_TYPE, type GgufValue } from './types.ts';
import { writeGguf, type TensorToWrite } from './writer.ts';

// The oracles here are independent of the code under test: Python's struct module (IEEE half with round-half-even,
// float32 rounding) for the encoders' exact bytes, a half decoder written from the IEEE formula, and the writer's
// inputs for the reader.

const PYTHON = process.env.TOOLGAUGE_PYTHON ?? '/usr/bin/python3';
const hasPython = (() => {
  try {
    execFileSync(PYTHON, ['-c', 'import struct'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** ggml's quantize_row_q8_0_ref and IEEE half packing, in Python: hex bytes per input list. */
const PY_ORACLE = `
import json, struct, sys, math
f32 = lambda x: struct.unpack('<f', struct.pack('<f', x))[0]
def half(x):
    try:
        return struct.pack('<e', x)
    except OverflowError:
        return struct.pack('<e', math.copysign(float('inf'), x))
def q8(xs):
    out = b''
    for b in range(0, len(xs), 32):
        blk = [f32(v) for v in xs[b:b+32]]
        amax = max(abs(v) for v in blk)
        d = f32(amax / 127)
        inv = f32(1 / d) if d else 0.0
        out += half(d)
        for v in blk:
            y = f32(v * inv)
            q = int(math.floor(abs(y) + 0.5)) * (1 if y >= 0 else -1)
            out += struct.pack('<b', q)
    return out
req = json.load(sys.stdin)
floats = lambda h: [v for (v,) in struct.iter_unpack('<f', bytes.fromhex(h))]
print(json.dumps({'f16': b''.join(half(v) for v in floats(req['f16'])).hex(), 'q8': q8(floats(req['q8'])).hex()}))
`;

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** An IEEE half decoder written from the formula (independent of encode.ts's). */
function halfToNumber(bits: number): number {
  const s = bits >> 15 ? -1 : 1;
  const e = (bits >> 10) & 31;
  const m = bits & 1023;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * 2 ** (e - 15) * (1 + m / 1024);
}

describe('tensor encoders', () => {
  const finite32 = fc.float({ noNaN: true, noDefaultInfinity: true, min: -1e5, max: 1e5 });
  const samples = fc.sample(fc.array(finite32, { minLength: 32, maxLength: 32 }), { numRuns: 60, seed: 7 });
  const edge = [
    0,
    -0,
    1,
    -1,
    65504,
    65519.99,
    65520,
    -70000,
    6.1e-5,
    5.96e-8,
    2.98e-8,
    2.99e-8,
    1e-10,
    0.1,
    1 / 3,
    2049,
    2051,
    1.00048828125,
    1.00146484375,
  ];
  const f16In = [...edge, ...samples.flat()];
  const q8In = [
    ...samples.flat(),
    ...new Array(32).fill(0),
    ...Array.from({ length: 32 }, (_, i) => (i - 16) * 0.5),
    ...Array.from({ length: 32 }, (_, i) => (i % 2 ? 1e-6 : -2.5)),
  ];

  it.skipIf(!hasPython)(
    'F16 and Q8_0 bytes equal Python struct references (IEEE half round-half-even; ggml q8_0 reference)',
    () => {
      // The inputs travel as float32 bytes (JSON would lose -0).
      const asHex = (xs: number[]) => hex(new Uint8Array(Float32Array.from(xs).buffer));
      const out = JSON.parse(
        execFileSync(PYTHON, ['-c', PY_ORACLE], {
          input: JSON.stringify({ f16: asHex(f16In), q8: asHex(q8In) }),
          encoding: 'utf8',
        }),
      ) as { f16: string; q8: string };
      expect(hex(encodeF16(Float32Array.from(f16In)))).toBe(out.f16);
      expect(hex(encodeQ8_0(Float32Array.from(q8In)))).toBe(out.q8);
    },
  );

  it('Q8_0 decodes within half a step of every input, and each block spans ±127 (property)', () => {
    fc.assert(
      fc.property(
        fc
          .array(finite32, { minLength: 1, maxLength: 4 })
          .chain((seeds) => fc.array(finite32, { minLength: 32 * seeds.length, maxLength: 32 * seeds.length })),
        (xs) => {
          const input = Float32Array.from(xs);
          const bytes = encodeQ8_0(input);
          expect(bytes.length).toBe((xs.length / 32) * 34);
          const view = new DataView(bytes.buffer);
          for (let b = 0; b < xs.length / 32; b++) {
            const d = halfToNumber(view.getUint16(b * 34, true));
            const block = input.subarray(b * 32, b * 32 + 32);
            const amax = Math.max(...block.map(Math.abs));
            let maxQ = 0;
            for (let j = 0; j < 32; j++) {
              const q = view.getInt8(b * 34 + 2 + j);
              maxQ = Math.max(maxQ, Math.abs(q));
              // |q·d − x| ≤ d/2 with d before f16 rounding; the f16 scale adds up to 127·(rounding of d).
              expect(Math.abs(q * d - block[j]!)).toBeLessThanOrEqual(
                amax / 127 / 2 + 127 * Math.abs(d - amax / 127) + 1e-6 * amax + 1e-30,
              );
            }
            if (amax > 1e-3) expect(maxQ).toBe(127);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('F16 is the nearest half (property)', () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true, min: -65000, max: 65000 }), (x) => {
        const h = new DataView(encodeF16(Float32Array.of(x)).buffer).getUint16(0, true);
        const got = halfToNumber(h);
        const f = Math.fround(x);
        // The neighbours of the chosen half are no closer.
        for (const n of [h - 1, h + 1]) {
          if ((n & 0x7c00) === 0x7c00 || n < 0 || n > 0xffff || (n ^ h) & 0x8000) continue;
          expect(Math.abs(halfToNumber(n) - f)).toBeGreaterThanOrEqual(Math.abs(got - f));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

const scalarValue: fc.Arbitrary<GgufValue> = fc.oneof(
  fc.record({ type: fc.constant('u8' as const), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ type: fc.constant('i8' as const), value: fc.integer({ min: -128, max: 127 }) }),
  fc.record({ type: fc.constant('u16' as const), value: fc.integer({ min: 0, max: 65535 }) }),
  fc.record({ type: fc.constant('i16' as const), value: fc.integer({ min: -32768, max: 32767 }) }),
  fc.record({ type: fc.constant('u32' as const), value: fc.integer({ min: 0, max: 0xffffffff }) }),
  fc.record({ type: fc.constant('i32' as const), value: fc.integer({ min: -0x80000000, max: 0x7fffffff }) }),
  fc.record({ type: fc.constant('f32' as const), value: fc.float({ noNaN: true }).map(Math.fround) }),
  fc.record({ type: fc.constant('f64' as const), value: fc.double({ noNaN: true }) }),
  fc.record({ type: fc.constant('u64' as const), value: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) }),
  fc.record({ type: fc.constant('i64' as const), value: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) }),
  fc.record({ type: fc.constant('bool' as const), value: fc.boolean() }),
  fc.record({ type: fc.constant('string' as const), value: fc.string({ unit: 'grapheme', maxLength: 40 }) }),
);
const arrayValue: fc.Arbitrary<GgufValue> = fc.oneof(
  fc.record({
    type: fc.constant('array' as const),
    itemType: fc.constant('string' as const),
    value: fc.array(fc.string({ unit: 'grapheme', maxLength: 10 }), { maxLength: 8 }),
  }),
  fc.record({
    type: fc.constant('array' as const),
    itemType: fc.constant('i32' as const),
    value: fc.array(fc.integer({ min: -0x80000000, max: 0x7fffffff }), { maxLength: 8 }),
  }),
  fc.record({
    type: fc.constant('array' as const),
    itemType: fc.constant('u64' as const),
    value: fc.array(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { maxLength: 8 }),
  }),
  fc.record({
    type: fc.constant('array' as const),
    itemType: fc.constant('bool' as const),
    value: fc.array(fc.boolean(), { maxLength: 8 }),
  }),
);
const metadataArb = fc.uniqueArray(
  fc.tuple(
    fc.string({ minLength: 1, maxLength: 20 }).filter((k) => k !== 'general.alignment'),
    fc.oneof(scalarValue, arrayValue),
  ),
  { selector: ([k]) => k, maxLength: 8 },
);
const tensorArb: fc.Arbitrary<Omit<TensorToWrite, 'name'>> = fc
  .record({
    type: fc.constantFrom(GGML_TYPE.F32, GGML_TYPE.F16, GGML_TYPE.Q8_0),
    blocks: fc.integer({ min: 1, max: 3 }),
    rows: fc.integer({ min: 1, max: 3 }),
    seed: fc.integer(),
  })
  .map(({ type, blocks, rows, seed }) => {
    const dims = [32 * blocks, rows];
    const per = type === GGML_TYPE.F32 ? 4 : type === GGML_TYPE.F16 ? 2 : 34 / 32;
    const data = new Uint8Array(dims[0]! * rows * per);
    for (let i = 0; i < data.length; i++) data[i] = (seed + i * 31) & 0xff;
    return { dims, type, data };
  });

describe('GGUF writer and header reader', () => {
  it('read(write(m, t)) gives back every metadata value, tensor info and tensor byte (property)', () => {
    fc.assert(
      fc.property(
        metadataArb,
        fc.array(tensorArb, { maxLength: 4 }),
        fc.constantFrom(undefined, 32, 64),
        (meta, ts, align) => {
          const metadata: Array<[string, GgufValue]> = align
            ? [...meta, ['general.alignment', { type: 'u32', value: align }]]
            : meta;
          const tensors = ts.map((t, i) => ({ ...t, name: `t${i}` }));
          const bytes = writeGguf(metadata, tensors);
          const h = readGgufHeaderFromBytes(bytes);
          expect(h.version).toBe(3);
          expect(h.alignment).toBe(align ?? 32);
          expect([...h.metadata.entries()]).toEqual(metadata);
          expect(h.tensors.map((t) => ({ name: t.name, dims: t.dims, type: t.type }))).toEqual(
            tensors.map((t) => ({ name: t.name, dims: t.dims, type: t.type })),
          );
          expect(h.dataOffset % h.alignment).toBe(0);
          h.tensors.forEach((t, i) => {
            expect(Number(t.offset) % h.alignment).toBe(0);
            const at = h.dataOffset + Number(t.offset);
            expect(hex(bytes.subarray(at, at + tensors[i]!.data.length))).toBe(hex(tensors[i]!.data));
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  const small = writeGguf(
    [
      ['general.architecture', { type: 'string', value: 'llama' }],
      ['a', { type: 'array', itemType: 'string', value: ['x', 'yy'] }],
    ],
    [{ name: 'w', dims: [32, 1], type: GGML_TYPE.F32, data: new Uint8Array(128) }],
  );

  it('refuses every truncation of a file with a one-line DataError naming the field', () => {
    for (let n = 0; n < small.length - 128; n++) {
      let err: unknown;
      try {
        readGgufHeaderFromBytes(small.subarray(0, n), 'cut.gguf');
      } catch (e) {
        err = e;
      }
      expect(err, `prefix of ${n} bytes`).toBeInstanceOf(DataError);
      expect((err as Error).message).toMatch(/^cut\.gguf: field \S/);
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('corrupt bytes are read or refused with a DataError, never another exception (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(small.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
        (edits) => {
          const b = Uint8Array.from(small);
          for (const [at, v] of edits) b[at] = v;
          try {
            readGgufHeaderFromBytes(b, 'x.gguf');
          } catch (e) {
            expect(e).toBeInstanceOf(DataError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses absurd counts before allocating, naming the field', () => {
    const b = Buffer.from(small);
    b.writeBigUInt64LE(2n ** 40n, 16); // metadata_kv_count
    expect(() => readGgufHeaderFromBytes(b, 'big.gguf')).toThrow(
      /^big\.gguf: field metadata_kv_count: metadata entry count 1099511627776 is over the limit/,
    );
    const c = Buffer.from(small);
    c.write('GGML', 0);
    expect(() => readGgufHeaderFromBytes(c, 'm.gguf')).toThrow('m.gguf: field magic: not a GGUF file');
  });
});

describe('test models', () => {
  it('carry a GPT-2 byte-level vocabulary, typed special tokens and the llama keys llama.cpp requires', () => {
    const h = readGgufHeaderFromBytes(buildTestModel({ type: 'Q8_0', template: 'hermes', seed: 1 }));
    const tokens = h.metadata.get('tokenizer.ggml.tokens')!.value as string[];
    const types = h.metadata.get('tokenizer.ggml.token_type')!.value as number[];
    expect(tokens.slice(0, 256)).toEqual(gpt2ByteChars());
    expect(new Set(gpt2ByteChars()).size).toBe(256);
    expect(gpt2ByteChars()[32]).toBe('Ġ'); // GPT-2 writes a space as Ġ
    expect(types[tokens.indexOf('<|im_end|>')]).toBe(3);
    expect(types[tokens.indexOf('<tool_call>')]).toBe(4);
    for (const m of h.metadata.get('tokenizer.ggml.merges')!.value as string[])
      expect(tokens).toContain(m.replace(' ', ''));
    for (const k of [
      'context_length',
      'embedding_length',
      'block_count',
      'feed_forward_length',
      'attention.head_count',
      'attention.head_count_kv',
      'attention.layer_norm_rms_epsilon',
      'rope.dimension_count',
    ]) {
      expect(h.metadata.has(`llama.${k}`), k).toBe(true);
    }
    expect(tensorTypeOf(h)).toBe('Q8_0');
    // Norms stay F32; the weight matrices are Q8_0.
    expect(h.tensors.find((t) => t.name === 'blk.0.attn_norm.weight')!.type).toBe(GGML_TYPE.F32);
    expect(h.tensors.find((t) => t.name === 'blk.1.ffn_down.weight')).toMatchObject({
      dims: [128, 64],
      type: GGML_TYPE.Q8_0,
    });
    expect(h.tensors.find((t) => t.name === 'token_embd.weight')!.dims).toEqual([64, tokens.length]);
    const facts = factsOfHeader('m.gguf', h, 'x', 1);
    expect(facts).toMatchObject({
      testModel: true,
      architecture: 'llama',
      tensorType: 'Q8_0',
      bosToken: '<|endoftext|>',
      eosToken: '<|im_end|>',
      vocabSize: tokens.length,
    });
  });

  it('the same seed in F32 and Q8_0 is one model quantized; another seed is another model', () => {
    const weights = (type: 'F32' | 'Q8_0', seed: number): Float32Array => {
      const bytes = buildTestModel({ type, template: 'llama3', seed });
      const h = readGgufHeaderFromBytes(bytes);
      const t = h.tensors.find((x) => x.name === 'blk.0.attn_q.weight')!;
      const at = h.dataOffset + Number(t.offset);
      const n = t.dims[0]! * t.dims[1]!;
      const view = new DataView(bytes.buffer, bytes.byteOffset + at);
      if (type === 'F32') return Float32Array.from({ length: n }, (_, i) => view.getFloat32(i * 4, true));
      return Float32Array.from(
        { length: n },
        (_, i) =>
          halfToNumber(view.getUint16(Math.floor(i / 32) * 34, true)) *
          view.getInt8(Math.floor(i / 32) * 34 + 2 + (i % 32)),
      );
    };
    const f = weights('F32', 5);
    const q = weights('Q8_0', 5);
    const other = weights('F32', 6);
    const maxDiff = (a: Float32Array, b: Float32Array) => Math.max(...a.map((x, i) => Math.abs(x - b[i]!)));
    const amax = Math.max(...f.map(Math.abs));
    expect(maxDiff(f, q)).toBeLessThan(amax / 127);
    expect(maxDiff(f, other)).toBeGreaterThan(amax / 4);
  });

  it.each(Object.keys(TEST_TEMPLATES))(
    'the %s template renders tools, prior calls and the generation prompt with special tokens of its vocabulary',
    (name) => {
      const t = TEST_TEMPLATES[name as keyof typeof TEST_TEMPLATES];
      const tools = [
        {
          type: 'function' as const,
          function: {
            name: 'get_weather',
            description: 'Weather now',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ];
      const text = renderChat(t.jinja, {
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        ],
        tools,
        addGenerationPrompt: true,
        bosToken: t.bos,
        eosToken: t.eos,
      });
      expect(text).toContain('"get_weather"');
      expect(text).toContain('"city"');
      expect(text).toContain('sunny');
      const vocab = testVocabulary(name as keyof typeof TEST_TEMPLATES).tokens;
      for (const special of text.match(/<\|[a-z_]+\|>/g) ?? []) expect(vocab).toContain(special);
      if (name === 'hermes')
        expect(text).toContain('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>');
      else expect(text).toContain('{"name": "get_weather", "parameters": {"city": "Oslo"}}<|eot_id|>');
    },
  );
});
