import { ggufPathOf } from '../core/engine-facts.ts';
import type { ModelProvenance } from '../core/provenance.ts';
import { readGgufHeader, tensorTypeOf } from '../engine/gguf/reader.ts';
import type { GgufHeader } from '../engine/gguf/types.ts';
import type { RunPlan } from '../kit/plan.ts';
import { sameModel } from './model-listed.ts';

/** Longest string kept from a models entry or a GGUF's metadata (a hostile server may send anything). */
const MAX_CHARS = 1_000;
/** Largest models entry kept whole; a larger one keeps its scalar fields only. */
const MAX_ENTRY_CHARS = 8_000;

/**
 * The endpoint's models entry for `model`: the one listed under its name, else the only one listed (a server that
 * answers under any name: llama.cpp, `toolgauge serve`, the simulator), else none. Pure.
 */
export function endpointEntry(
  model: string,
  entries: ReadonlyArray<Record<string, unknown>>,
): NonNullable<ModelProvenance['endpoint']> | null {
  const named = entries.find((e) => typeof e.id === 'string' && sameModel(model, e.id));
  const entry = named ?? (entries.length === 1 ? entries[0]! : undefined);
  if (!entry) return null;
  return { matched: named !== undefined, entry: bounded(entry) };
}

function bounded(entry: Record<string, unknown>): Record<string, unknown> {
  if (JSON.stringify(entry).length <= MAX_ENTRY_CHARS) return entry;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(entry))
    if (typeof v === 'number' || typeof v === 'boolean') out[k] = v;
    else if (typeof v === 'string') out[k] = v.slice(0, MAX_CHARS);
  return out;
}

/**
 * A GGUF header's `general.*` scalars (name, version, source URL and repository, file type …), strings capped, and
 * `tensor_type`: the quantization by name (`general.file_type` when known, else the 2-D tensors' common type).
 */
export function ggufGeneral(header: GgufHeader): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of header.metadata) {
    if (!k.startsWith('general.') || k === 'general.alignment' || v.type === 'array') continue;
    out[k] =
      typeof v.value === 'string'
        ? v.value.slice(0, MAX_CHARS)
        : typeof v.value === 'bigint'
          ? Number(v.value)
          : v.value;
  }
  out.tensor_type = tensorTypeOf(header);
  return out;
}

/**
 * Fill in what only the open run can learn about its model (docs/outputs.md, `model_provenance`): the endpoint's
 * models entry (the run's endpoint, the engine it started, or the simulator) and a `gguf:` file's metadata. Never
 * refuses a run: a source that does not answer is left out.
 */
export async function recordProvenance(plan: RunPlan): Promise<void> {
  const p: ModelProvenance = { ...plan.run.provenance };
  const path = ggufPathOf(plan.run.model);
  if (path !== null) {
    try {
      p.gguf = ggufGeneral(readGgufHeader(path));
    } catch {
      // the engine reports an unreadable file itself
    }
  }
  const url = plan.run.baseUrl ?? plan.simUrl;
  if (url) {
    const { listModelEntries } = await import('../model/preflight.ts');
    const entries = await listModelEntries({ baseUrl: url, apiKey: plan.run.apiKey });
    p.endpoint = entries ? endpointEntry(plan.run.model, entries) : null;
  }
  plan.run.provenance = p;
}
