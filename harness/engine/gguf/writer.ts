// GGUF v3 writer: metadata key/values of every type, tensor infos, tensor data aligned to `general.alignment`
// (32 unless the metadata says otherwise). Pure: returns the file's bytes.
import { GGML_TYPE, GGUF_VALUE_TYPE, type GgufValue } from './types.ts';

export const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
export const GGUF_VERSION = 3;
export const DEFAULT_ALIGNMENT = 32;

export interface TensorToWrite {
  name: string;
  /** First dimension first (the contiguous one), as ggml's ne. */
  dims: number[];
  /** ggml type number (GGML_TYPE). */
  type: number;
  /** The encoded data (its length must match dims and type). */
  data: Uint8Array;
}

const SCALAR_TYPE: Record<Exclude<GgufValue['type'], 'array'>, number> = {
  u8: GGUF_VALUE_TYPE.UINT8,
  i8: GGUF_VALUE_TYPE.INT8,
  u16: GGUF_VALUE_TYPE.UINT16,
  i16: GGUF_VALUE_TYPE.INT16,
  u32: GGUF_VALUE_TYPE.UINT32,
  i32: GGUF_VALUE_TYPE.INT32,
  f32: GGUF_VALUE_TYPE.FLOAT32,
  bool: GGUF_VALUE_TYPE.BOOL,
  string: GGUF_VALUE_TYPE.STRING,
  u64: GGUF_VALUE_TYPE.UINT64,
  i64: GGUF_VALUE_TYPE.INT64,
  f64: GGUF_VALUE_TYPE.FLOAT64,
};

/** Bytes one element of a tensor type takes, per block: [block size in elements, bytes per block]. */
export function typeBlock(type: number): [number, number] {
  switch (type) {
    case GGML_TYPE.F32:
      return [1, 4];
    case GGML_TYPE.F16:
    case GGML_TYPE.BF16:
      return [1, 2];
    case GGML_TYPE.Q8_0:
      return [32, 34];
    case GGML_TYPE.Q4_0:
      return [32, 18];
    default:
      throw new Error(`tensor type ${type} is not one the writer knows`);
  }
}

export function tensorBytes(dims: number[], type: number): number {
  const [block, bytes] = typeBlock(type);
  if (dims[0]! % block !== 0)
    throw new Error(`first dimension ${dims[0]} is not a multiple of the type's block (${block})`);
  return (dims.reduce((a, b) => a * b, 1) / block) * bytes;
}

/** A growable little-endian byte sink. */
class Sink {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  length = 0;
  private room(n: number): number {
    if (this.length + n > this.buf.length) {
      let size = this.buf.length * 2;
      while (size < this.length + n) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    const at = this.length;
    this.length += n;
    return at;
  }
  u8(x: number) {
    const at = this.room(1);
    this.view.setUint8(at, x);
  }
  i8(x: number) {
    const at = this.room(1);
    this.view.setInt8(at, x);
  }
  u16(x: number) {
    const at = this.room(2);
    this.view.setUint16(at, x, true);
  }
  i16(x: number) {
    const at = this.room(2);
    this.view.setInt16(at, x, true);
  }
  u32(x: number) {
    const at = this.room(4);
    this.view.setUint32(at, x, true);
  }
  i32(x: number) {
    const at = this.room(4);
    this.view.setInt32(at, x, true);
  }
  f32(x: number) {
    const at = this.room(4);
    this.view.setFloat32(at, x, true);
  }
  f64(x: number) {
    const at = this.room(8);
    this.view.setFloat64(at, x, true);
  }
  u64(x: bigint | number) {
    const at = this.room(8);
    this.view.setBigUint64(at, BigInt(x), true);
  }
  i64(x: bigint) {
    const at = this.room(8);
    this.view.setBigInt64(at, x, true);
  }
  bytes(b: Uint8Array) {
    const at = this.room(b.length); // room() may replace the buffer: take the offset first
    this.buf.set(b, at);
  }
  string(s: string) {
    const b = new TextEncoder().encode(s);
    this.u64(b.length);
    this.bytes(b);
  }
  pad(alignment: number) {
    const n = (alignment - (this.length % alignment)) % alignment;
    this.room(n); // zeros: the buffer is zero-filled beyond `length`
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function writeScalar(
  sink: Sink,
  type: Exclude<GgufValue['type'], 'array'>,
  v: number | bigint | boolean | string,
): void {
  switch (type) {
    case 'u8':
      return sink.u8(v as number);
    case 'i8':
      return sink.i8(v as number);
    case 'u16':
      return sink.u16(v as number);
    case 'i16':
      return sink.i16(v as number);
    case 'u32':
      return sink.u32(v as number);
    case 'i32':
      return sink.i32(v as number);
    case 'f32':
      return sink.f32(v as number);
    case 'f64':
      return sink.f64(v as number);
    case 'u64':
      return sink.u64(v as bigint);
    case 'i64':
      return sink.i64(v as bigint);
    case 'bool':
      return sink.u8(v ? 1 : 0);
    case 'string':
      return sink.string(v as string);
  }
}

/** The bytes of a GGUF v3 file with these metadata entries (in order) and tensors (in order). */
export function writeGguf(metadata: Array<[string, GgufValue]>, tensors: TensorToWrite[]): Uint8Array {
  const alignEntry = metadata.find(([k]) => k === 'general.alignment')?.[1];
  const alignment = alignEntry && typeof alignEntry.value === 'number' ? alignEntry.value : DEFAULT_ALIGNMENT;
  const sink = new Sink();
  sink.u32(GGUF_MAGIC);
  sink.u32(GGUF_VERSION);
  sink.u64(tensors.length);
  sink.u64(metadata.length);
  for (const [key, v] of metadata) {
    sink.string(key);
    if (v.type === 'array') {
      sink.u32(GGUF_VALUE_TYPE.ARRAY);
      sink.u32(SCALAR_TYPE[v.itemType]);
      sink.u64(v.value.length);
      for (const x of v.value) writeScalar(sink, v.itemType, x);
    } else {
      sink.u32(SCALAR_TYPE[v.type]);
      writeScalar(sink, v.type, v.value);
    }
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    const expected = tensorBytes(t.dims, t.type);
    if (t.data.length !== expected)
      throw new Error(`tensor ${t.name}: ${t.data.length} bytes of data, its dims and type need ${expected}`);
    offsets.push(offset);
    offset += Math.ceil(expected / alignment) * alignment;
  }
  tensors.forEach((t, i) => {
    sink.string(t.name);
    sink.u32(t.dims.length);
    for (const d of t.dims) sink.u64(d);
    sink.u32(t.type);
    sink.u64(offsets[i]!);
  });
  sink.pad(alignment);
  for (const t of tensors) {
    sink.bytes(t.data);
    sink.pad(alignment);
  }
  return sink.result();
}
