// Test models: small llama-architecture GGUFs with seeded random weights, a real GPT-2 byte-level BPE tokenizer
// and a real chat template. For plumbing and for measuring the axes' mechanics; never a model's result.
// The weights depend on the seed and the shape only: the same seed in F32, F16 and Q8_0 is one model, quantized.
import { Rng, deriveSeed } from '../../core/rng.ts';
import { encodeTensor, type TensorEncoding } from './encode.ts';
import { TEST_TEMPLATES, type TestTemplateName } from './chat-templates.ts';
import { GGML_TYPE, type GgufValue } from './types.ts';
import { writeGguf, type TensorToWrite } from './writer.ts';

export interface TestModelShape {
  embedding: number;
  layers: number;
  heads: number;
  kvHeads: number;
  feedForward: number;
  /** `llama.context_length` (the trained context the file declares). */
  contextLength: number;
}

export const DEFAULT_TEST_SHAPE: TestModelShape = {
  embedding: 64,
  layers: 2,
  heads: 4,
  kvHeads: 2,
  feedForward: 128,
  contextLength: 4096,
};

export interface TestModelOptions {
  type: TensorEncoding;
  template: TestTemplateName;
  seed: number;
  shape?: Partial<TestModelShape>;
  /** Leave these metadata keys out (to make a file llama.cpp refuses, for crash tests). */
  omitKeys?: string[];
}

/** GPT-2's byte → printable character map (bytes_to_unicode): byte-level BPE tokens are written in it. */
export function gpt2ByteChars(): string[] {
  const keep: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) keep.push(b);
  for (let b = 0xa1; b <= 0xac; b++) keep.push(b);
  for (let b = 0xae; b <= 0xff; b++) keep.push(b);
  const out: string[] = new Array(256);
  let n = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + n++);
  return out;
}

/** A few merges (left, right in plain text), so the vocabulary has multi-byte tokens as real ones do. */
const MERGES: Array<[string, string]> = [
  [' ', 't'],
  ['h', 'e'],
  ['i', 'n'],
  ['e', 'r'],
  ['a', 'n'],
  ['o', 'n'],
  [' t', 'he'],
  ['"', ':'],
  ['a', 'r'],
  ['m', 'e'],
  ['n', 'a'],
  ['na', 'me'],
  ['"', 'name'],
  ['g', 'u'],
  ['ar', 'gu'],
  ['me', 'n'],
  ['t', 's'],
  ['men', 'ts'],
  ['argu', 'ments'],
  ['"', 'arguments'],
  ['{', '"'],
  ['\n', '\n'],
  [' ', '"'],
  ['o', 'r'],
  ['a', 't'],
];

/** llama.cpp's token types. */
const TOKEN_TYPE = { NORMAL: 1, CONTROL: 3, USER_DEFINED: 4 } as const;
/** llama.cpp's `general.file_type` for each encoding (LLAMA_FTYPE_ALL_F32, MOSTLY_F16, MOSTLY_Q8_0). */
const FILE_TYPE: Record<TensorEncoding, number> = { F32: 0, F16: 1, Q8_0: 7 };

export interface TestVocabulary {
  tokens: string[];
  types: number[];
  merges: string[];
}

export function testVocabulary(template: TestTemplateName): TestVocabulary {
  const bytes = gpt2ByteChars();
  const enc = (s: string) => [...new TextEncoder().encode(s)].map((b) => bytes[b]).join('');
  const tokens = [...bytes];
  const types: number[] = tokens.map(() => TOKEN_TYPE.NORMAL);
  const merges: string[] = [];
  for (const [l, r] of MERGES) {
    const [a, b] = [enc(l), enc(r)];
    if (!tokens.includes(a) || !tokens.includes(b))
      throw new Error(`merge ${JSON.stringify([l, r])} joins a token the vocabulary lacks`);
    merges.push(`${a} ${b}`);
    tokens.push(a + b);
    types.push(TOKEN_TYPE.NORMAL);
  }
  const t = TEST_TEMPLATES[template];
  for (const s of t.control) tokens.push(s), types.push(TOKEN_TYPE.CONTROL);
  for (const s of t.userDefined) tokens.push(s), types.push(TOKEN_TYPE.USER_DEFINED);
  return { tokens, types, merges };
}

/** Standard normal draws from the repository's seeded generator (Box–Muller). */
function gaussian(rng: Rng, n: number, std: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = Math.max(rng.next(), 1e-12);
    const v = rng.next();
    const r = Math.sqrt(-2 * Math.log(u)) * std;
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return out;
}

interface WeightSpec {
  name: string;
  dims: number[];
  /** Norm weights: ones, kept F32 in every encoding (as llama.cpp's quantizer keeps them). */
  norm?: boolean;
  std?: number;
}

function weightSpecs(s: TestModelShape, vocab: number): WeightSpec[] {
  const headDim = s.embedding / s.heads;
  const kv = headDim * s.kvHeads;
  const specs: WeightSpec[] = [{ name: 'token_embd.weight', dims: [s.embedding, vocab], std: 1 }];
  for (let l = 0; l < s.layers; l++) {
    const p = `blk.${l}.`;
    specs.push(
      { name: `${p}attn_norm.weight`, dims: [s.embedding], norm: true },
      { name: `${p}attn_q.weight`, dims: [s.embedding, s.embedding] },
      { name: `${p}attn_k.weight`, dims: [s.embedding, kv] },
      { name: `${p}attn_v.weight`, dims: [s.embedding, kv] },
      { name: `${p}attn_output.weight`, dims: [s.embedding, s.embedding] },
      { name: `${p}ffn_norm.weight`, dims: [s.embedding], norm: true },
      { name: `${p}ffn_gate.weight`, dims: [s.embedding, s.feedForward] },
      { name: `${p}ffn_up.weight`, dims: [s.embedding, s.feedForward] },
      { name: `${p}ffn_down.weight`, dims: [s.feedForward, s.embedding] },
    );
  }
  // An untied output matrix: with tied embeddings a random model's residual stream mostly predicts the token it
  // just read, and greedy decoding repeats one token forever. Std 0.5 gives logits of std ~4 (peaked choices).
  specs.push(
    { name: 'output_norm.weight', dims: [s.embedding], norm: true },
    { name: 'output.weight', dims: [s.embedding, vocab], std: 0.5 },
  );
  return specs;
}

/** The model's float weights by tensor name: a function of the seed and shape only (not of the encoding). */
export function testModelWeights(
  seed: number,
  shape: TestModelShape,
  vocab: number,
): Array<{ spec: WeightSpec; values: Float32Array }> {
  return weightSpecs(shape, vocab).map((spec) => {
    const n = spec.dims.reduce((a, b) => a * b, 1);
    if (spec.norm) return { spec, values: new Float32Array(n).fill(1) };
    // 1/sqrt(fan_in) keeps activations of a random network in range; the fan-in is the first (contiguous) dim.
    const std = spec.std ?? 1 / Math.sqrt(spec.dims[0]!);
    return { spec, values: gaussian(new Rng(deriveSeed(seed, 'tensor', spec.name)), n, std) };
  });
}

/** The bytes of a test model GGUF. */
export function buildTestModel(opts: TestModelOptions): Uint8Array {
  const shape = { ...DEFAULT_TEST_SHAPE, ...opts.shape };
  if (shape.embedding % shape.heads !== 0 || shape.heads % shape.kvHeads !== 0)
    throw new Error('test model shape: heads must divide the embedding and kv heads the heads');
  const t = TEST_TEMPLATES[opts.template];
  const vocab = testVocabulary(opts.template);
  const id = (s: string) => vocab.tokens.indexOf(s);
  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  const metadata: Array<[string, GgufValue]> = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    [
      'general.name',
      { type: 'string', value: `toolgauge-test-${opts.template}-seed${opts.seed}-${opts.type.toLowerCase()}` },
    ],
    ['general.file_type', u32(FILE_TYPE[opts.type])],
    ['general.quantization_version', u32(2)],
    ['general.alignment', u32(32)],
    ['toolgauge.test_model', { type: 'bool', value: true }],
    ['toolgauge.seed', u32(opts.seed >>> 0)],
    ['toolgauge.template', { type: 'string', value: opts.template }],
    ['llama.context_length', u32(shape.contextLength)],
    ['llama.embedding_length', u32(shape.embedding)],
    ['llama.block_count', u32(shape.layers)],
    ['llama.feed_forward_length', u32(shape.feedForward)],
    ['llama.attention.head_count', u32(shape.heads)],
    ['llama.attention.head_count_kv', u32(shape.kvHeads)],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['llama.rope.dimension_count', u32(shape.embedding / shape.heads)],
    ['llama.rope.freq_base', { type: 'f32', value: 10000 }],
    ['llama.vocab_size', u32(vocab.tokens.length)],
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: t.pre }],
    ['tokenizer.ggml.tokens', { type: 'array', itemType: 'string', value: vocab.tokens }],
    ['tokenizer.ggml.token_type', { type: 'array', itemType: 'i32', value: vocab.types }],
    ['tokenizer.ggml.merges', { type: 'array', itemType: 'string', value: vocab.merges }],
    ['tokenizer.ggml.bos_token_id', u32(id(t.bos))],
    ['tokenizer.ggml.eos_token_id', u32(id(t.eos))],
    ['tokenizer.ggml.eot_token_id', u32(id(t.eos))],
    ['tokenizer.ggml.padding_token_id', u32(id(t.bos))],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: t.addBos }],
    ['tokenizer.chat_template', { type: 'string', value: t.jinja }],
  ];
  const kept = metadata.filter(([k]) => !opts.omitKeys?.includes(k));
  const tensors: TensorToWrite[] = testModelWeights(opts.seed, shape, vocab.tokens.length).map(({ spec, values }) => {
    const enc: TensorEncoding = spec.norm ? 'F32' : opts.type;
    return { name: spec.name, dims: spec.dims, type: GGML_TYPE[enc], data: encodeTensor(values, enc) };
  });
  return writeGguf(kept, tensors);
}
