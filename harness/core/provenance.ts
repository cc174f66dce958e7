import { z } from 'zod';

/**
 * Who the model of a run is, from every source there is (docs/outputs.md, `header.model_provenance`): the endpoint's
 * own models-list entry, a GGUF file's `general.*` metadata, the registry entry `--model registry:KEY` named, and
 * `--model-revision`. Each source is recorded as it said it; none is trusted over another.
 */
export const ModelProvenance = z
  .object({
    /** The endpoint's `GET /models` entry for the model (all its fields); `matched: false` when the endpoint lists
     * one model under another name (a server that answers under any name). */
    endpoint: z
      .object({ matched: z.boolean(), entry: z.record(z.string(), z.unknown()) })
      .nullable()
      .optional(),
    /** A `gguf:` file's `general.*` metadata (name, version, source URL, repository, file type …), scalars only. */
    gguf: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    /** The registry entry `--model registry:KEY` resolved. */
    registry: z
      .object({
        key: z.string(),
        model: z.string(),
        repo: z.string().nullable(),
        source: z.string(),
        revision: z.string().nullable(),
        quantization: z.string(),
        revision_note: z.string().nullable(),
      })
      .optional(),
    /** `--model-revision REV`: the revision the user says the endpoint serves (not checked). */
    revision: z.string().optional(),
  })
  .strict();
export type ModelProvenance = z.infer<typeof ModelProvenance>;
