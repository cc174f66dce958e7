// GGUF header reader (metadata and tensor infos, no tensor data), safe on untrusted files.
import type { GgufHeader } from './types.ts';

/** Read a GGUF file's header; a malformed file is a DataError naming the file and field. */
export function readGgufHeader(path: string): GgufHeader {
  throw new Error(`readGgufHeader(${path}): not yet implemented`);
}

/** The facts reports and the server print about a GGUF file, read without loading it. */
export interface GgufFacts {
  file: string;
  sha256: string;
  bytes: number;
  architecture: string;
  /** `F32`, `F16`, `Q8_0`, …: `general.file_type` when set, else the most common type of the 2-D tensors. */
  tensorType: string;
  vocabSize: number;
  chatTemplate?: string;
  chatTemplateSha256?: string;
  /** `toolgauge.test_model` is true: random weights written by `toolgauge make-test-model`. */
  testModel: boolean;
  bosToken?: string;
  eosToken?: string;
}

export function ggufFacts(path: string): GgufFacts {
  throw new Error(`ggufFacts(${path}): not yet implemented`);
}
