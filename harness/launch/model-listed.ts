import { SIMULATOR_OWNER } from '../sim/owner.ts';

/**
 * Servers that answer under any model name, whatever their models list says: llama.cpp's server (one file served),
 * `toolgauge serve` (its alias is only what it lists) and the simulator (every name is a policy or the default).
 */
const ANY_NAME_OWNERS: ReadonlySet<string> = new Set(['llamacpp', 'toolgauge-serve', SIMULATOR_OWNER]);

/** How many listed models a refusal names before "…". */
const SHOWN = 10;

/** Ollama serves `NAME` as `NAME:latest`: the two spellings name one model. */
export function sameModel(asked: string, listed: string): boolean {
  if (asked === listed) return true;
  const bare = (s: string) => s.replace(/:latest$/, '');
  return bare(asked) === bare(listed);
}

/**
 * Why the endpoint cannot serve `model`, from its models list (`checkEndpoint`'s answer): null when it lists the
 * model, lists nothing (no models route), or is a server that answers under any name. Otherwise one line naming the
 * model and the models the endpoint lists, so a misspelt name fails before the run instead of as a 404 in every case.
 */
export function unlistedModel(model: string, listed: { models: string[] | null; owners: string[] }): string | null {
  if (!listed.models || listed.models.length === 0) return null;
  if (listed.owners.some((o) => ANY_NAME_OWNERS.has(o))) return null;
  if (listed.models.some((m) => sameModel(model, m))) return null;
  const shown = listed.models.slice(0, SHOWN).join(', ');
  const more = listed.models.length > SHOWN ? `, … (${listed.models.length} in all)` : '';
  return `model '${model}' is not among the models the endpoint lists: ${shown}${more}`;
}
