/**
 * The bundled model registry (./models.yaml; docs/models.md): a key names a model's repository, revision, chat
 * template, quantization and tool-call format once, so a lineup entry can say `registry: qwen2.5-7b-instruct`.
 * Test models (`test_model:`) are files toolgauge writes itself; a lineup's `quant` picks their tensor type.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readYaml } from '../../core/yaml.ts';
import { z } from 'zod';
import { DataError, dataErrorFromZod } from '../../core/errors.ts';
import { TEST_TEMPLATE_NAMES } from '../../engine/gguf/chat-templates.ts';
import { FAMILIES } from '../../parse/index.ts';

/** The tensor types a test model can be written in (harness/engine/gguf/encode.ts). */
export const TEST_MODEL_TYPES = ['F32', 'F16', 'Q8_0'] as const;
export type TestModelType = (typeof TEST_MODEL_TYPES)[number];

export const RegistryEntrySchema = z
  .object({
    repo: z
      .string()
      .regex(/^[\w.-]+\/[\w.-]+$/, 'must be a Hugging Face repository (owner/name)')
      .optional(),
    /** null: not pinned by the registry. */
    revision: z.string().min(1).nullable().default(null),
    /** Why the revision is what it is: the hub's commits cannot be checked offline (required with `repo`). */
    revision_note: z.string().min(1).optional(),
    chat_template: z.string().min(1),
    quantization: z.string().min(1),
    family: z.enum(FAMILIES).optional(),
    test_model: z
      .object({
        template: z.enum(TEST_TEMPLATE_NAMES as [string, ...string[]]),
        seed: z.number().int().min(0).max(0xffffffff),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine(
    (e) => (e.repo === undefined) !== (e.test_model === undefined),
    'an entry names a repo or a test_model, exactly one',
  )
  .refine((e) => e.repo === undefined || e.revision_note !== undefined, {
    message: 'an entry with a repo says in revision_note what its revision is (it cannot be checked offline)',
    path: ['revision_note'],
  });
export type RegistryEntry = z.infer<typeof RegistryEntrySchema>;

const KEY = /^[a-z0-9][a-z0-9._-]*$/;
export const RegistrySchema = z
  .object({
    models: z.record(z.string().regex(KEY, 'keys use lower-case letters, digits and . _ -'), RegistryEntrySchema),
  })
  .strict();
export type Registry = z.infer<typeof RegistrySchema>;

/** A registry file's text; errors name the file, the key and the field. */
export function parseRegistry(text: string, file: string): Registry {
  let raw: unknown;
  try {
    raw = readYaml(text);
  } catch (e) {
    throw new DataError(file, undefined, undefined, `not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const r = RegistrySchema.safeParse(raw);
  if (!r.success) {
    const path = r.error.issues[0]!.path;
    throw dataErrorFromZod(
      file,
      path[0] === 'models' && typeof path[1] === 'string' ? `models.${path[1]}` : undefined,
      r.error,
    );
  }
  return r.data;
}

export const BUNDLED_REGISTRY = new URL('./models.yaml', import.meta.url);

let bundled: Registry | undefined;
/** The registry shipped with toolgauge (read once per process). */
export function bundledRegistry(): Registry {
  bundled ??= parseRegistry(readFileSync(BUNDLED_REGISTRY, 'utf8'), 'models.yaml (toolgauge registry)');
  return bundled;
}

/** What a lineup entry takes from its registry key (the entry's own fields win). */
export interface FromRegistry {
  model: string;
  family: RegistryEntry['family'];
  quantization: string;
  repo: string | undefined;
  revision: string | undefined;
  /** A test model to write before the run (idempotent), when the entry is one. */
  testModel: { path: string; template: string; seed: number; type: TestModelType } | undefined;
}

/** The file of a test model: one per template, seed and type, so runs share it. */
export function testModelPath(dir: string, template: string, seed: number, type: TestModelType): string {
  return join(dir, `test-${template}-seed${seed}-${type}.gguf`);
}

/**
 * A registry key as a lineup entry: the repository as the model name (what a vLLM or SGLang server serves it as),
 * or, for a test model, `gguf:` its file in `testModelDir` at the type `quant` asks (else the registry's). Pure:
 * throws a one-line message (the caller adds file and entry) for an unknown key or a type a test model cannot have.
 */
export function fromRegistry(
  registry: Registry,
  key: string,
  quant: string | undefined,
  testModelDir: string,
): FromRegistry {
  const e = registry.models[key];
  if (!e) {
    const keys = Object.keys(registry.models);
    throw new Error(`no model '${key}' in the registry (known: ${keys.join(', ')})`);
  }
  if (e.test_model) {
    const type = (quant ?? e.quantization).toUpperCase();
    if (!(TEST_MODEL_TYPES as readonly string[]).includes(type))
      throw new Error(`quant ${quant}: the test model '${key}' is written as ${TEST_MODEL_TYPES.join(', ')}`);
    const path = testModelPath(testModelDir, e.test_model.template, e.test_model.seed, type as TestModelType);
    return {
      model: `gguf:${path}`,
      family: e.family,
      quantization: type,
      repo: undefined,
      revision: undefined,
      testModel: { path, template: e.test_model.template, seed: e.test_model.seed, type: type as TestModelType },
    };
  }
  return {
    model: e.repo!,
    family: e.family,
    quantization: quant ?? e.quantization,
    repo: e.repo,
    revision: e.revision ?? undefined,
    testModel: undefined,
  };
}

/** The repository a registry entry comes from: the hub's page of its repo, or toolgauge for a test model. */
export function registrySource(e: RegistryEntry): string {
  return e.repo ? `https://huggingface.co/${e.repo}` : 'toolgauge test model (random weights, written locally)';
}

/** Where test models are written: `TOOLGAUGE_TEST_MODEL_DIR`, else ~/.cache/toolgauge/test-models. */
export function testModelDirOf(env: Readonly<Record<string, string | undefined>>): string {
  return (
    env.TOOLGAUGE_TEST_MODEL_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'toolgauge', 'test-models')
  );
}
