import { UsageError } from '../core/errors.ts';
import type { ModelProvenance } from '../core/provenance.ts';
import { bundledRegistry, fromRegistry, registrySource, testModelDirOf } from '../calls/registry/registry.ts';
import { ensureTestModel } from '../calls/registry/test-model-file.ts';

export const REGISTRY_PREFIX = 'registry:';

/**
 * `--model registry:KEY` on any command: the run's settings source with the model the registry names (its repository,
 * or `gguf:` a test model's file, written here once), and the entry as the header records it. Any other model: the
 * source as it is. An unknown key is a one-line UsageError naming the flag and the known keys.
 */
export function resolveRegistryModel(source: NodeJS.ProcessEnv): {
  source: NodeJS.ProcessEnv;
  registry?: NonNullable<ModelProvenance['registry']>;
} {
  const model = source.TOOLGAUGE_MODEL;
  if (!model?.startsWith(REGISTRY_PREFIX)) return { source };
  const key = model.slice(REGISTRY_PREFIX.length);
  const registry = bundledRegistry();
  let r: ReturnType<typeof fromRegistry>;
  try {
    r = fromRegistry(registry, key, undefined, testModelDirOf(source));
  } catch (err) {
    throw new UsageError(`--model ${model}: ${(err as Error).message}`);
  }
  if (r.testModel) ensureTestModel(r.testModel);
  const e = registry.models[key]!;
  return {
    source: { ...source, TOOLGAUGE_MODEL: r.model },
    registry: {
      key,
      model: r.model,
      repo: e.repo ?? null,
      source: registrySource(e),
      revision: e.revision,
      quantization: r.quantization,
      revision_note: e.revision_note ?? null,
    },
  };
}
