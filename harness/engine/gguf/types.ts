// GGUF file structures shared by the writer and the header reader (GGUF v3, little-endian).

/** GGUF metadata value types (the numbers are the file format's). */
export const GGUF_VALUE_TYPE = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const;
export type GgufValueType = (typeof GGUF_VALUE_TYPE)[keyof typeof GGUF_VALUE_TYPE];

/** Tensor types toolgauge writes and names (ggml's numbers); others read back as `type <n>`. */
export const GGML_TYPE = {
  F32: 0,
  F16: 1,
  Q4_0: 2,
  Q4_1: 3,
  Q5_0: 6,
  Q5_1: 7,
  Q8_0: 8,
  Q8_1: 9,
  Q2_K: 10,
  Q3_K: 11,
  Q4_K: 12,
  Q5_K: 13,
  Q6_K: 14,
  Q8_K: 15,
  BF16: 30,
} as const;
export type GgmlTypeName = keyof typeof GGML_TYPE;

/** A typed metadata value as the writer takes it and the reader returns it. */
export type GgufValue =
  | { type: 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'f32' | 'f64'; value: number }
  | { type: 'u64' | 'i64'; value: bigint }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; itemType: Exclude<GgufValue['type'], 'array'>; value: Array<number | bigint | boolean | string> };

/** One tensor's description in the header; `dims` first dimension first (ggml order: the contiguous one). */
export interface GgufTensorInfo {
  name: string;
  dims: number[];
  /** ggml type number (GGML_TYPE). */
  type: number;
  /** Offset of the data relative to the start of the tensor data section. */
  offset: bigint;
}

/** What the header reader returns: everything but the tensor data. */
export interface GgufHeader {
  version: number;
  metadata: Map<string, GgufValue>;
  tensors: GgufTensorInfo[];
  alignment: number;
  /** Byte offset of the tensor data section in the file. */
  dataOffset: number;
}
