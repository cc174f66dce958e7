// Tensor encodings the GGUF writer emits: F32, F16 (IEEE half, round to nearest even) and Q8_0 (ggml's blocks of
// 32 weights: an f16 scale and 32 int8, 34 bytes), byte for byte as ggml's reference quantizer writes them.

export const Q8_0_BLOCK = 32;
export const Q8_0_BLOCK_BYTES = 34;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The IEEE half-precision bits of a number (rounded to float32 first, then to nearest even). */
export function f32ToF16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  let mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf / NaN
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → Inf
  if (e <= 0) {
    // Subnormal half (or zero): shift the mantissa with its implicit bit, round to nearest even.
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let m = mant >>> shift;
    if (rest > half || (rest === half && m & 1)) m++;
    return sign | m;
  }
  let h = sign | (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++; // may carry into the exponent: still correct
  return h;
}

export function encodeF32(values: Float32Array): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i]!, true);
  return out;
}

export function encodeF16(values: Float32Array): Uint8Array {
  const out = new Uint8Array(values.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setUint16(i * 2, f32ToF16Bits(values[i]!), true);
  return out;
}

/** C's roundf: halves away from zero. */
const roundAway = (x: number): number => (x < 0 ? -Math.round(-x) : Math.round(x));

/**
 * Q8_0 as ggml's quantize_row_q8_0_ref: per block d = amax / 127 (float32), q = roundf(x / d) computed with the
 * float32 d, and d stored as f16. The length must be a multiple of 32.
 */
export function encodeQ8_0(values: Float32Array): Uint8Array {
  if (values.length % Q8_0_BLOCK !== 0)
    throw new Error(`Q8_0 needs a multiple of ${Q8_0_BLOCK} values, got ${values.length}`);
  const blocks = values.length / Q8_0_BLOCK;
  const out = new Uint8Array(blocks * Q8_0_BLOCK_BYTES);
  const view = new DataView(out.buffer);
  for (let b = 0; b < blocks; b++) {
    let amax = 0;
    for (let j = 0; j < Q8_0_BLOCK; j++) amax = Math.max(amax, Math.abs(values[b * Q8_0_BLOCK + j]!));
    const d = Math.fround(amax / 127);
    const id = d ? Math.fround(1 / d) : 0;
    const at = b * Q8_0_BLOCK_BYTES;
    view.setUint16(at, f32ToF16Bits(d), true);
    for (let j = 0; j < Q8_0_BLOCK; j++)
      view.setInt8(at + 2 + j, roundAway(Math.fround(values[b * Q8_0_BLOCK + j]! * id)));
  }
  return out;
}

export type TensorEncoding = 'F32' | 'F16' | 'Q8_0';

export function encodeTensor(values: Float32Array, type: TensorEncoding): Uint8Array {
  return type === 'F32' ? encodeF32(values) : type === 'F16' ? encodeF16(values) : encodeQ8_0(values);
}
