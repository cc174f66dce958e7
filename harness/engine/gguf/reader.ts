// GGUF header reader: metadata and tensor infos, never the tensor data. Safe on untrusted files: every count and
// length is bounded (by the file's size and by fixed caps) before anything is allocated, what the whole header may
// hold is capped too (its bytes, its array items: a JS array costs 8 to 32 bytes an item however small the item is
// in the file), and a malformed file is a one-line DataError naming the file and the field. The file is opened
// without blocking and must be a regular file (core/nofollow.ts openForReading): a FIFO is refused, not waited on.
import { createReadStream, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { DataError } from '../../core/errors.ts';
import { sha256 } from '../../core/hash.ts';
import { closeQuietly, openForReading } from '../../core/nofollow.ts';
import { GGML_TYPE, GGUF_VALUE_TYPE, type GgufHeader, type GgufTensorInfo, type GgufValue } from './types.ts';

const MAGIC = 0x46554747;
/** Caps on what a header may declare (real models: ~300 keys, ~1,000 tensors, ~260,000 vocabulary entries). */
export const GGUF_LIMITS = {
  metadataEntries: 100_000,
  tensors: 1_000_000,
  stringBytes: 64 * 1024 * 1024,
  keyBytes: 65_535,
  arrayItems: 16_000_000,
  /** Items of all the header's arrays together (real models: ~1.5 million: tokens, scores, types, merges). */
  headerArrayItems: 4_000_000,
  /** Bytes of the header (metadata and tensor infos; real models: ~20 MB at most). */
  headerBytes: 128 * 1024 * 1024,
  dims: 4,
};

const SCALAR: Record<number, { type: Exclude<GgufValue['type'], 'array'>; size: number }> = {
  [GGUF_VALUE_TYPE.UINT8]: { type: 'u8', size: 1 },
  [GGUF_VALUE_TYPE.INT8]: { type: 'i8', size: 1 },
  [GGUF_VALUE_TYPE.UINT16]: { type: 'u16', size: 2 },
  [GGUF_VALUE_TYPE.INT16]: { type: 'i16', size: 2 },
  [GGUF_VALUE_TYPE.UINT32]: { type: 'u32', size: 4 },
  [GGUF_VALUE_TYPE.INT32]: { type: 'i32', size: 4 },
  [GGUF_VALUE_TYPE.FLOAT32]: { type: 'f32', size: 4 },
  [GGUF_VALUE_TYPE.BOOL]: { type: 'bool', size: 1 },
  [GGUF_VALUE_TYPE.STRING]: { type: 'string', size: 8 },
  [GGUF_VALUE_TYPE.UINT64]: { type: 'u64', size: 8 },
  [GGUF_VALUE_TYPE.INT64]: { type: 'i64', size: 8 },
  [GGUF_VALUE_TYPE.FLOAT64]: { type: 'f64', size: 8 },
};

/** Reads forward through a file (or a buffer) in chunks, refusing to read past its end. */
class Cursor {
  private chunk = Buffer.alloc(0);
  private chunkAt = 0; // file offset of chunk[0]
  pos = 0;
  field = 'header';
  /** Array items the header may still hold (GGUF_LIMITS.headerArrayItems). */
  itemsLeft = GGUF_LIMITS.headerArrayItems;
  constructor(
    private readonly file: string,
    private readonly size: number,
    private readonly readAt: (buf: Buffer, position: number) => number,
  ) {}
  fail(problem: string): never {
    throw new DataError(this.file, undefined, this.field, problem);
  }
  private need(n: number): Buffer {
    if (this.pos + n > GGUF_LIMITS.headerBytes)
      this.fail(`the header goes past ${GGUF_LIMITS.headerBytes} bytes (the limit on a GGUF header)`);
    if (this.pos + n > this.size)
      this.fail(
        `the file ends at byte ${this.size}, the header needs ${this.pos + n - this.size} more bytes here (truncated or corrupt)`,
      );
    const rel = this.pos - this.chunkAt;
    if (rel < 0 || rel + n > this.chunk.length) {
      const len = Math.min(Math.max(n, 1 << 20), this.size - this.pos);
      this.chunk = Buffer.alloc(len);
      const got = this.readAt(this.chunk, this.pos);
      if (got < n) this.fail(`short read at byte ${this.pos}`);
      this.chunkAt = this.pos;
    }
    const at = this.pos - this.chunkAt;
    this.pos += n;
    return this.chunk.subarray(at, at + n);
  }
  u8() {
    return this.need(1).readUInt8(0);
  }
  i8() {
    return this.need(1).readInt8(0);
  }
  u16() {
    return this.need(2).readUInt16LE(0);
  }
  i16() {
    return this.need(2).readInt16LE(0);
  }
  u32() {
    return this.need(4).readUInt32LE(0);
  }
  i32() {
    return this.need(4).readInt32LE(0);
  }
  f32() {
    return this.need(4).readFloatLE(0);
  }
  f64() {
    return this.need(8).readDoubleLE(0);
  }
  u64() {
    return this.need(8).readBigUInt64LE(0);
  }
  i64() {
    return this.need(8).readBigInt64LE(0);
  }
  /** A u64 count that must fit under `cap` and in the bytes left (each item at least `minBytes`). */
  count(what: string, cap: number, minBytes: number): number {
    const n = this.u64();
    const left = BigInt(this.size - this.pos);
    if (n > BigInt(cap)) this.fail(`${what} ${n} is over the limit of ${cap}`);
    if (n * BigInt(minBytes) > left) this.fail(`${what} ${n} cannot fit in the ${left} bytes left in the file`);
    return Number(n);
  }
  string(cap = GGUF_LIMITS.stringBytes): string {
    const n = this.count('string length', cap, 1);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(this.need(n));
    } catch (err) {
      if (err instanceof DataError) throw err;
      return this.fail('a string is not valid UTF-8');
    }
  }
}

function readScalar(c: Cursor, type: Exclude<GgufValue['type'], 'array'>): number | bigint | boolean | string {
  switch (type) {
    case 'u8':
      return c.u8();
    case 'i8':
      return c.i8();
    case 'u16':
      return c.u16();
    case 'i16':
      return c.i16();
    case 'u32':
      return c.u32();
    case 'i32':
      return c.i32();
    case 'f32':
      return c.f32();
    case 'f64':
      return c.f64();
    case 'u64':
      return c.u64();
    case 'i64':
      return c.i64();
    case 'bool': {
      const b = c.u8();
      if (b > 1) c.fail(`a bool is ${b} (0 or 1 expected)`);
      return b === 1;
    }
    case 'string':
      return c.string();
  }
}

function readValue(c: Cursor): GgufValue {
  const t = c.u32();
  if (t === GGUF_VALUE_TYPE.ARRAY) {
    const it = c.u32();
    if (it === GGUF_VALUE_TYPE.ARRAY) c.fail('arrays of arrays are not supported');
    const item = SCALAR[it];
    if (!item) c.fail(`unknown array item type ${it}`);
    const n = c.count('array length', GGUF_LIMITS.arrayItems, item.size);
    if (n > c.itemsLeft)
      c.fail(`array length ${n}: the header's arrays would hold over ${GGUF_LIMITS.headerArrayItems} items in all`);
    c.itemsLeft -= n;
    const value: Array<number | bigint | boolean | string> = new Array(n);
    for (let i = 0; i < n; i++) value[i] = readScalar(c, item.type);
    return { type: 'array', itemType: item.type, value };
  }
  const s = SCALAR[t];
  if (!s) c.fail(`unknown value type ${t}`);
  return { type: s.type, value: readScalar(c, s.type) } as GgufValue;
}

function parse(c: Cursor, size: number): GgufHeader {
  c.field = 'magic';
  if (size < 24) c.fail(`${size} bytes: too short for a GGUF header`);
  const magic = c.u32();
  if (magic !== MAGIC) c.fail('not a GGUF file (the first 4 bytes are not "GGUF")');
  c.field = 'version';
  const version = c.u32();
  if (version !== 2 && version !== 3) c.fail(`GGUF version ${version} (2 or 3 supported)`);
  c.field = 'tensor_count';
  const tensorCount = c.count('tensor count', GGUF_LIMITS.tensors, 8 + 4 + 8 + 4 + 8);
  c.field = 'metadata_kv_count';
  const kvCount = c.count('metadata entry count', GGUF_LIMITS.metadataEntries, 8 + 4);
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    c.field = `metadata[${i}].key`;
    const key = c.string(GGUF_LIMITS.keyBytes);
    c.field = key;
    if (metadata.has(key)) c.fail('the key appears twice');
    metadata.set(key, readValue(c));
  }
  const alignEntry = metadata.get('general.alignment');
  let alignment = 32;
  if (alignEntry) {
    c.field = 'general.alignment';
    if (alignEntry.type !== 'u32' || alignEntry.value === 0 || (alignEntry.value & (alignEntry.value - 1)) !== 0)
      c.fail('must be a u32 power of two');
    alignment = alignEntry.value;
  }
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    c.field = `tensors[${i}].name`;
    const name = c.string(GGUF_LIMITS.keyBytes);
    c.field = `tensor ${name}`;
    const nDims = c.u32();
    if (nDims < 1 || nDims > GGUF_LIMITS.dims) c.fail(`${nDims} dimensions (1 to ${GGUF_LIMITS.dims})`);
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) {
      const n = c.u64();
      if (n > BigInt(Number.MAX_SAFE_INTEGER)) c.fail(`dimension ${d} is ${n}`);
      dims.push(Number(n));
    }
    const type = c.u32();
    const offset = c.u64();
    if (offset % BigInt(alignment) !== 0n) c.fail(`data offset ${offset} is not aligned to ${alignment}`);
    tensors.push({ name, dims, type, offset });
  }
  const dataOffset = Math.ceil(c.pos / alignment) * alignment;
  c.field = 'tensor data';
  for (const t of tensors)
    if (BigInt(dataOffset) + t.offset > BigInt(size)) c.fail(`tensor ${t.name} starts past the end of the file`);
  return { version, metadata, tensors, alignment, dataOffset };
}

/** Read a GGUF header from bytes in memory (tests, and files already read). */
export function readGgufHeaderFromBytes(bytes: Uint8Array, name = '<bytes>'): GgufHeader {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cursor = new Cursor(name, buf.length, (out, pos) => buf.copy(out, 0, pos, pos + out.length));
  return parse(cursor, buf.length);
}

/** Open a GGUF file for reading (a regular file, opened without blocking); a refusal is a DataError naming it. */
function openGguf(path: string): { fd: number; size: number } {
  let opened: ReturnType<typeof openForReading>;
  try {
    opened = openForReading(path);
  } catch (err) {
    const m = (err as Error).message;
    throw new DataError(path, undefined, undefined, m.startsWith(`${path} `) ? m.slice(path.length + 1) : m);
  }
  if (!opened) throw new DataError(path, undefined, undefined, 'cannot open: ENOENT');
  return opened;
}

function headerOf(path: string, fd: number, size: number): GgufHeader {
  const cursor = new Cursor(path, size, (out, pos) => readSync(fd, out, 0, out.length, pos));
  return parse(cursor, size);
}

/** Read a GGUF file's header; a malformed file is a DataError naming the file and field. */
export function readGgufHeader(path: string): GgufHeader {
  const { fd, size } = openGguf(path);
  try {
    return headerOf(path, fd, size);
  } finally {
    closeQuietly(fd);
  }
}

/** ggml's name of a tensor type number. */
export function ggmlTypeName(type: number): string {
  return Object.entries(GGML_TYPE).find(([, n]) => n === type)?.[0] ?? `type ${type}`;
}

/** llama.cpp's `general.file_type` numbers (LLAMA_FTYPE_MOSTLY_*) for the types reports name. */
const FILE_TYPE: Record<number, string> = {
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  7: 'Q8_0',
  8: 'Q5_0',
  9: 'Q5_1',
  10: 'Q2_K',
  11: 'Q3_K_S',
  12: 'Q3_K_M',
  13: 'Q3_K_L',
  14: 'Q4_K_S',
  15: 'Q4_K_M',
  16: 'Q5_K_S',
  17: 'Q5_K_M',
  18: 'Q6_K',
  32: 'BF16',
};

/** The file's weight type: `general.file_type` when set and known, else the most common type of its 2-D tensors. */
export function tensorTypeOf(header: GgufHeader): string {
  const ft = header.metadata.get('general.file_type');
  if (ft && typeof ft.value === 'number' && FILE_TYPE[ft.value]) return FILE_TYPE[ft.value]!;
  const counts = new Map<number, number>();
  for (const t of header.tensors) if (t.dims.length >= 2) counts.set(t.type, (counts.get(t.type) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1])[0];
  return top ? ggmlTypeName(top[0]) : 'unknown';
}

/** A metadata string, or undefined when absent or not a string. */
export function metaString(header: GgufHeader, key: string): string | undefined {
  const v = header.metadata.get(key);
  return v?.type === 'string' ? v.value : undefined;
}

function metaNumber(header: GgufHeader, key: string): number | undefined {
  const v = header.metadata.get(key);
  return v && typeof v.value === 'number' ? v.value : v && typeof v.value === 'bigint' ? Number(v.value) : undefined;
}

/** The facts reports and the server print about a GGUF file, read without loading it. */
export interface GgufFacts {
  file: string;
  /** sha256 of the whole file, hex. */
  sha256: string;
  /** File size in bytes. */
  bytes: number;
  /** `general.architecture`, e.g. `llama`. */
  architecture: string;
  /** `F32`, `F16`, `Q8_0`, …: `general.file_type` when set, else the most common type of the 2-D tensors. */
  tensorType: string;
  vocabSize: number;
  /** `tokenizer.chat_template` (Jinja), when the file has one. */
  chatTemplate?: string;
  /** sha256 of the chat template text, hex. */
  chatTemplateSha256?: string;
  /** `toolgauge.test_model` is true: random weights written by `toolgauge make-test-model` (never a model's result). */
  testModel: boolean;
  /** Special tokens' texts, when the file names them. */
  bosToken?: string;
  eosToken?: string;
}

/** sha256 of a file, streamed (model files are gigabytes); with `fd`, of that open file (closed at the end). */
export function sha256FileStreamed(path: string, fd?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    (fd === undefined ? createReadStream(path) : createReadStream(path, { fd, start: 0, autoClose: true }))
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

/** The facts of a header (no hashing of the file). */
export function factsOfHeader(file: string, header: GgufHeader, fileSha256: string, bytes: number): GgufFacts {
  const arch = metaString(header, 'general.architecture');
  if (!arch) throw new DataError(file, undefined, 'general.architecture', 'missing (not a model file?)');
  const tokens = header.metadata.get('tokenizer.ggml.tokens');
  const vocabSize = tokens?.type === 'array' ? tokens.value.length : (metaNumber(header, `${arch}.vocab_size`) ?? 0);
  const tokenText = (key: string): string | undefined => {
    const id = metaNumber(header, key);
    return id !== undefined && tokens?.type === 'array' && typeof tokens.value[id] === 'string'
      ? (tokens.value[id] as string)
      : undefined;
  };
  const chatTemplate = metaString(header, 'tokenizer.chat_template');
  const test = header.metadata.get('toolgauge.test_model');
  return {
    file,
    sha256: fileSha256,
    bytes,
    architecture: arch,
    tensorType: tensorTypeOf(header),
    vocabSize,
    ...(chatTemplate !== undefined ? { chatTemplate, chatTemplateSha256: sha256(chatTemplate) } : {}),
    testModel: test?.type === 'bool' && test.value,
    ...(tokenText('tokenizer.ggml.bos_token_id') !== undefined
      ? { bosToken: tokenText('tokenizer.ggml.bos_token_id') }
      : {}),
    ...(tokenText('tokenizer.ggml.eos_token_id') !== undefined
      ? { eosToken: tokenText('tokenizer.ggml.eos_token_id') }
      : {}),
  };
}

/** Read a GGUF file's header and hash it: what reports and the server name the model by. */
export async function ggufFacts(path: string): Promise<GgufFacts> {
  // One open file for the header, the size and the hash: what was checked is what is read.
  const { fd, size } = openGguf(path);
  let header: GgufHeader;
  try {
    header = headerOf(path, fd, size);
  } catch (err) {
    closeQuietly(fd);
    throw err;
  }
  return factsOfHeader(path, header, await sha256FileStreamed(path, fd), size);
}
