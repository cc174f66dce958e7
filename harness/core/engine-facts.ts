import { z } from 'zod';

/**
 * What a run on a local GGUF model (`--model gguf:PATH`) records about the engine and the file, in its report header
 * and its fingerprint: the engine and its llama.cpp build, the file's sha256 and tensor type, the chat template's
 * sha256, and whether the file is a toolgauge test model (random weights: never a model's result). `toolgauge serve`
 * lists them under `meta` in /v1/models.
 */
export const EngineFacts = z
  .object({
    engine: z.string(),
    llama_cpp_build: z.string().nullable(),
    file: z.string(),
    sha256: z.string(),
    tensor_type: z.string(),
    chat_template_sha256: z.string().nullable(),
    test_model: z.boolean(),
  })
  .passthrough();
export type EngineFacts = z.infer<typeof EngineFacts>;

export const GGUF_PREFIX = 'gguf:';

/** The file a `gguf:PATH` model names, or null for any other model. */
export function ggufPathOf(model: string): string | null {
  return model.startsWith(GGUF_PREFIX) ? model.slice(GGUF_PREFIX.length) : null;
}

export const TEST_MODEL_NOTICE =
  'TEST MODEL RUN: these numbers come from a toolgauge test model (random weights written by `toolgauge make-test-model`) run on a real engine, not from a language model.';
