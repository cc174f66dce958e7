/**
 * `report --compare` of probe runs labelled as quantizations of one model: refused unless both ran with the same
 * chat template (sha256) and tokenizer — otherwise a template or tokenizer change would be counted as quantization
 * damage. Two runs are such a pair when one is `--quantization-of` the other's `--label`, or both are quantizations
 * of the same label. Pure: reads the runs' config blocks (summary.json).
 */
import { checkQuantizationPair, type RunIdentity } from '../calls/lineup/lineup.ts';

export interface SavedRunConfig {
  dir: string;
  config: Record<string, unknown>;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function identityOf(r: SavedRunConfig): RunIdentity {
  const id = r.config.identity as RunIdentity | undefined;
  return id && typeof id === 'object'
    ? { ...id, label: str(r.config.label) ?? r.dir }
    : { label: str(r.config.label) ?? r.dir, template: null, tokenizer: null };
}

/** Whether two runs are labelled as quantizations of one model. */
export function quantizationPair(a: SavedRunConfig, b: SavedRunConfig): boolean {
  const la = str(a.config.label);
  const lb = str(b.config.label);
  const qa = str(a.config.quantization_of);
  const qb = str(b.config.quantization_of);
  return (qb !== null && qb === la) || (qa !== null && qa === lb) || (qa !== null && qa === qb);
}

/** The refusal for the first quantization pair (every run against the baseline) that fails the guard; null when none does. */
export function quantizationRefusal(runs: readonly SavedRunConfig[]): string | null {
  const [base, ...rest] = runs;
  if (!base) return null;
  for (const r of rest) {
    if (!quantizationPair(base, r)) continue;
    const [ref, quant] = str(base.config.quantization_of) === str(r.config.label) ? [r, base] : [base, r];
    const check = checkQuantizationPair(identityOf(ref), identityOf(quant));
    if (!check.ok) return `${check.reason} (${quant.dir} vs ${ref.dir})`;
  }
  return null;
}
