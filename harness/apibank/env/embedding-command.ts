import type { EmbeddingFallback } from './index.ts';
/** An EmbeddingFallback that runs `argv` once per request: EmbeddingRequest as JSON on stdin, `{"name": ...}` out. */
export function commandEmbeddingFallback(_argv: string[]): EmbeddingFallback {
  throw new Error('not implemented yet');
}
