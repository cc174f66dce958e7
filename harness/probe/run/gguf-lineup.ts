/**
 * Lineups of local GGUF files (`--model gguf:a.gguf,gguf:b.gguf`): what the quantization guard checks comes from the
 * files themselves — the chat template (`tokenizer.chat_template`, hashed) and the tokenizer (every
 * `tokenizer.ggml.*` entry but the chat template, hashed) — and files of one model in several weight types are
 * paired as quantizations of the one stored at the widest type (F32, else BF16/F16), when the architecture, the
 * tensor shapes and `general.basename` (where both have one) agree. The guard still decides: pairing only names the pair. Reads file headers, never weights.
 */
import { sha256, stableStringify } from '../../core/hash.ts';
import { metaString, readGgufHeader, tensorTypeOf } from '../../engine/gguf/reader.ts';
import type { GgufHeader } from '../../engine/gguf/types.ts';
import type { RunIdentity } from '../../calls/lineup/lineup.ts';
import type { ModelEntry } from './env.ts';
import { prepareTemplateSource, type PreparedTemplate } from './template.ts';
import { DataError } from '../../core/errors.ts';

/** The file a `gguf:PATH` model names, or null for any other model. */
export function ggufPathOf(model: string): string | null {
  return model.startsWith('gguf:') && model.length > 5 ? model.slice(5) : null;
}

/** Unquantized weight types, widest first: the reference of a quantization lineup. */
const REFERENCE_TYPES = ['F32', 'BF16', 'F16'];

interface GgufIdentity {
  tensorType: string;
  architecture: string;
  /** `general.basename`, when the file has one (two bases are not one model; `general.name` often names the type too). */
  basename: string | null;
  templateSha256: string | null;
  tokenizerSha256: string;
  /** The tensors' names and shapes (a quantization keeps them). */
  shapeSha256: string;
}

const jsonable = (v: unknown): unknown =>
  typeof v === 'bigint' ? v.toString() : Array.isArray(v) ? v.map(jsonable) : v;

function identityOfHeader(h: GgufHeader): GgufIdentity {
  const tok: Record<string, unknown> = {};
  for (const [k, v] of h.metadata)
    if (k.startsWith('tokenizer.') && k !== 'tokenizer.chat_template') tok[k] = jsonable(v.value);
  const tpl = metaString(h, 'tokenizer.chat_template');
  return {
    tensorType: tensorTypeOf(h),
    architecture: metaString(h, 'general.architecture') ?? 'unknown',
    basename: metaString(h, 'general.basename') ?? null,
    templateSha256: tpl === undefined ? null : sha256(tpl),
    tokenizerSha256: sha256(stableStringify(tok)),
    shapeSha256: sha256(stableStringify(h.tensors.map((t) => [t.name, t.dims]))),
  };
}

const cache = new Map<string, GgufIdentity>();
function ggufIdentity(path: string): GgufIdentity {
  let id = cache.get(path);
  if (!id) cache.set(path, (id = identityOfHeader(readGgufHeader(path))));
  return id;
}

/** The guard's identity of a gguf: entry, from its file; null for any other model. */
export function ggufRunIdentity(m: Pick<ModelEntry, 'label' | 'model'>): RunIdentity | null {
  const path = ggufPathOf(m.model);
  if (path === null) return null;
  const id = ggufIdentity(path);
  return {
    label: m.label,
    template: id.templateSha256 === null ? null : { sha256: id.templateSha256, source: 'gguf' },
    tokenizer: { id: `gguf tokenizer sha256:${id.tokenizerSha256.slice(0, 16)}`, source: 'gguf' },
  };
}

/**
 * The entries with their weight type filled in from the file and, for a file of the same model (architecture and
 * tensor shapes) at a narrower type than another entry, `quantizationOf` that entry. Entries that already say
 * either keep what they say.
 */
export function withGgufQuantization(models: readonly ModelEntry[]): ModelEntry[] {
  const ids = new Map(
    models.flatMap((m) =>
      ggufPathOf(m.model) !== null ? [[m.label, ggufIdentity(ggufPathOf(m.model)!)] as const] : [],
    ),
  );
  const rank = (t: string) => {
    const i = REFERENCE_TYPES.indexOf(t);
    return i < 0 ? REFERENCE_TYPES.length : i;
  };
  return models.map((m) => {
    const id = ids.get(m.label);
    if (!id) return m;
    const quantization = m.quantization ?? id.tensorType;
    if (m.quantizationOf !== undefined) return { ...m, quantization };
    const ref = models
      .filter((o) => o.label !== m.label && ids.has(o.label))
      .map((o) => ({ o, id: ids.get(o.label)! }))
      .filter(
        (x) =>
          x.id.architecture === id.architecture &&
          x.id.shapeSha256 === id.shapeSha256 &&
          (x.id.basename === null || id.basename === null || x.id.basename === id.basename) &&
          rank(x.id.tensorType) < REFERENCE_TYPES.length &&
          rank(x.id.tensorType) < rank(id.tensorType),
      )
      .sort((a, b) => rank(a.id.tensorType) - rank(b.id.tensorType))[0];
    return { ...m, quantization, ...(ref ? { quantizationOf: ref.o.label } : {}) };
  });
}

const templates = new Map<string, PreparedTemplate | null>();

/** The file's own chat template, prepared as a `--template` would be (memoised per process); null when it has none. */
export function ggufTemplate(path: string, injectedDate: string): PreparedTemplate | null {
  const key = `${path}\u0000${injectedDate}`;
  if (!templates.has(key)) {
    const source = metaString(readGgufHeader(path), 'tokenizer.chat_template');
    templates.set(
      key,
      source === undefined
        ? null
        : prepareTemplateSource(source, `${path} (tokenizer.chat_template)`, new Date(`${injectedDate}T09:30:00Z`)),
    );
  }
  return templates.get(key)!;
}

export { ensureTestModel } from '../../calls/registry/test-model-file.ts';

/** A gguf: entry with `quant`: the file's tensor type must be that type (the engine runs the file as it is). */
export function checkGgufQuant(m: Pick<ModelEntry, 'label' | 'model' | 'quant'>): void {
  const path = ggufPathOf(m.model);
  if (path === null || m.quant === undefined) return;
  const type = ggufIdentity(path).tensorType;
  if (type.toUpperCase() !== m.quant.toUpperCase())
    throw new DataError(
      path,
      undefined,
      undefined,
      `entry '${m.label}' asks quant ${m.quant}, but the file's tensors are ${type}`,
    );
}
