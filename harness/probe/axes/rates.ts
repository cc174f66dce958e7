/**
 * The layered rates two ways, named so nobody mixes them (pure, from per-case records):
 *
 * - `<layer>.over_call_expected` — Toolhound's reading: over every case that expects a call, the share that
 *   reached AND passed this layer (a case whose output did not parse counts 0 at every layer). These fall
 *   monotonically down the layers and read as "of all the calls asked for, how many got this far".
 * - `<layer>.given_<previous>` — toolgauge's conditional rate: over the cases that passed the previous layer
 *   only. `schema_valid.given_parse_ok`, `tool_correct.given_parse_ok` (tool choice is judged on every parsed
 *   call, valid or not), `args_correct.given_tool_correct`. These isolate one layer's failure.
 *
 * The two agree only at the first layer (`parse_ok`). Example: 10 call cases, 5 parse, 4 of those name the right
 * tool → tool_correct.over_call_expected = 0.4, tool_correct.given_parse_ok = 0.8.
 *
 * (Toolhound's code itself computes args_correct over tool-correct cases — its score dict only has that key when
 * the tool was right — so its published args_correct is the conditional one; `.over_call_expected` here follows
 * the definition it documents, over all call-expected cases.)
 */
import { estimateRate, type MetricEstimate } from '../../stats/index.ts';

export type Bit = 0 | 1 | null;

/** The part of a probe record these rates read (structurally a ProbeRecord's). */
export interface LayerRecord {
  id: string;
  error: string | null;
  expects_call: boolean;
  scores: Record<
    'strict' | 'lenient',
    { parse_ok: Bit; schema_valid: Bit; tool_correct: Bit; args_correct: Bit }
  > | null;
}

export const LAYERS = ['parse_ok', 'schema_valid', 'tool_correct', 'args_correct'] as const;
export type Layer = (typeof LAYERS)[number];

/** The layer each conditional rate is conditioned on. */
export const CONDITION: Record<Layer, Layer | null> = {
  parse_ok: null,
  schema_valid: 'parse_ok',
  tool_correct: 'parse_ok',
  args_correct: 'tool_correct',
};

export const toolhoundName = (l: Layer) => `${l}.over_call_expected`;
export const conditionalName = (l: Layer) => (CONDITION[l] ? `${l}.given_${CONDITION[l]}` : `${l}.given_call_expected`);

/** Reached and passed `l` — the chain a case must have passed for the Toolhound reading. */
function reached(s: NonNullable<LayerRecord['scores']>['strict'], l: Layer): 0 | 1 {
  const ok = (x: Bit) => x === 1;
  switch (l) {
    case 'parse_ok':
      return ok(s.parse_ok) ? 1 : 0;
    case 'schema_valid':
      return ok(s.parse_ok) && ok(s.schema_valid) ? 1 : 0;
    case 'tool_correct':
      return ok(s.parse_ok) && ok(s.tool_correct) ? 1 : 0;
    case 'args_correct':
      return ok(s.parse_ok) && ok(s.tool_correct) && ok(s.args_correct) ? 1 : 0;
  }
}

/** Per-case outcomes (trials averaged) of every layer under both readings, for rates and paired comparisons. */
export function layerOutcomes(
  records: readonly LayerRecord[],
  tier: 'strict' | 'lenient' = 'strict',
): Record<string, Map<string, number>> {
  const acc = new Map<string, Map<string, number[]>>();
  const put = (name: string, id: string, x: number) => {
    let m = acc.get(name);
    if (!m) acc.set(name, (m = new Map()));
    const xs = m.get(id) ?? [];
    xs.push(x);
    m.set(id, xs);
  };
  for (const r of records) {
    if (r.error || !r.expects_call || !r.scores) continue;
    const s = r.scores[tier];
    for (const l of LAYERS) {
      put(toolhoundName(l), r.id, reached(s, l));
      const cond = CONDITION[l];
      if (cond === null) put(conditionalName(l), r.id, reached(s, l));
      else if (cond === 'parse_ok' ? s.parse_ok === 1 : s.parse_ok === 1 && s.tool_correct === 1)
        put(conditionalName(l), r.id, s[l] === 1 ? 1 : 0);
    }
  }
  const out: Record<string, Map<string, number>> = {};
  for (const [name, m] of acc)
    out[name] = new Map(
      [...m]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([id, xs]) => [id, xs.reduce((a, b) => a + b, 0) / xs.length]),
    );
  return out;
}

const DENOMINATOR: Record<string, string> = {
  'parse_ok.over_call_expected': 'call-expected cases',
  'schema_valid.over_call_expected': 'call-expected cases (a case counts if its call parsed and is schema-valid)',
  'tool_correct.over_call_expected': 'call-expected cases (a case counts if its call parsed and names the right tools)',
  'args_correct.over_call_expected': 'call-expected cases (a case counts if parsed, right tools and right arguments)',
  'parse_ok.given_call_expected': 'call-expected cases',
  'schema_valid.given_parse_ok': 'call-expected cases whose call parsed',
  'tool_correct.given_parse_ok': 'call-expected cases whose call parsed',
  'args_correct.given_tool_correct': 'call-expected cases whose call named the right tools',
};

/** Both readings of every layer as estimates (Wilson / bootstrap by estimateRate's rule). */
export function layerRates(
  records: readonly LayerRecord[],
  tier: 'strict' | 'lenient' = 'strict',
  seed = 0,
): Record<string, MetricEstimate> {
  const out: Record<string, MetricEstimate> = {};
  const per = layerOutcomes(records, tier);
  for (const l of LAYERS)
    for (const name of [toolhoundName(l), conditionalName(l)])
      out[name] = estimateRate([...(per[name]?.values() ?? [])], { denominator: DENOMINATOR[name]!, seed });
  return out;
}
