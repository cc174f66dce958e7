import { arr, callsText, num, type Obj, obj, text } from './values.ts';
import type { ScorerView, Section } from './model.ts';

// Single-call evidence as the probe's and BFCL's metas name it (harness/calls: layered scoring per parser tier and
// attribution): both suites' case views show it with these helpers.
export const TIERS = ['strict', 'lenient'] as const;
const LAYERS = ['parse_ok', 'schema_valid', 'tool_correct', 'args_correct', 'abstained', 'false_trigger'] as const;

/** One scorer per tier and layer scored, with the tier's problems and mismatches as the reason. */
export function layerScorers(layers: Obj): ScorerView[] {
  return TIERS.flatMap((tier) => {
    const l = obj(layers[tier]);
    if (!layers[tier]) return [];
    const why = [...arr(l.problems), ...arr(l.mismatches)].map((p) => text(p)).join('; ');
    return LAYERS.filter((k) => l[k] !== undefined).map((k) => ({
      name: `${tier} ${k}`,
      value: num(l[k]),
      reason: why || null,
    }));
  });
}

/** The attribution of each tier: cause, kind and evidence. */
export function attributionTable(cause: Obj): Section {
  return {
    kind: 'table',
    title: 'Attribution per tier, with its evidence',
    head: ['tier', 'cause', 'kind', 'evidence'],
    rows: TIERS.filter((t) => cause[t]).map((t) => [
      t,
      text(obj(cause[t]).cause) ?? '—',
      text(obj(cause[t]).kind) ?? '',
      text(obj(cause[t]).evidence) ?? '',
    ]),
  };
}

/** The calls parsed per tier, one row each. */
export function callsPerTier(calls: Obj): Section {
  return {
    kind: 'table',
    title: 'Calls parsed per tier',
    head: ['tier', 'calls'],
    rows: TIERS.filter((x) => calls[x]).map((x) => [x, callsText(calls[x]) || '(no call)']),
  };
}
