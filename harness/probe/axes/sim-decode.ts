/**
 * The decode axis on the simulator, in process: each case answered by the simulated model's planted behaviour
 * (harness/probe/sim-responder.ts, unchanged) twice — free, and through the constrained decoder
 * (harness/constrain/simulate.ts) — then parsed and scored exactly as the probe does. Returns the two arms' per-case
 * outcomes for the decode comparison. A CALIBRATION of the harness, not a model result.
 *
 * The completions transport is modelled: the prompt is the Hermes reference template's rendering (what the sim
 * reads), the output is parsed by toolgauge under the family's strict and lenient tiers.
 */
import { constrainedOutput, type SimulatedDecode } from '../../constrain/simulate.ts';
import type { ConstraintSpec } from '../../constrain/requests.ts';
import type { Family } from '../../parse/index.ts';
import type { ProbeCase } from '../cases/types.ts';
import { LAYERED_METRICS, scoreTier, type LayeredScore } from '../../calls/score/index.ts';
import { intentOf, modelOutput, type Behaviour } from '../sim-responder.ts';
import { applyShape, chooseShape, referenceTemplate, renderChat, SHAPES } from '../../templates/index.ts';
import { observeText, tierObservation } from '../run/observe.ts';
import { layerOutcomes, type LayerRecord } from './rates.ts';
import type { Arm } from './compare-tables.ts';

export interface SimDecodeCase {
  id: string;
  score: LayeredScore;
  decode: SimulatedDecode | null;
}

const HERMES = referenceTemplate('hermes')!;
const shape = chooseShape(HERMES).shape ?? SHAPES[0]!;

function promptOf(c: ProbeCase): string {
  return renderChat(HERMES, { messages: applyShape(c.messages, shape), tools: c.tools, addGenerationPrompt: true });
}

export { intentOf };

export function runSimCase(
  c: ProbeCase,
  behaviour: Behaviour,
  family: Family,
  spec: ConstraintSpec | null,
  opts: { degeneration?: number; seed?: number } = {},
): SimDecodeCase {
  let text = modelOutput(behaviour, c, promptOf(c), family);
  let finish: string | null = 'stop';
  let decode: SimulatedDecode | null = null;
  if (spec) {
    decode = constrainedOutput(text, spec, {
      key: c.id,
      intent: intentOf(behaviour, c),
      ...(opts.degeneration !== undefined ? { degeneration: opts.degeneration } : {}),
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    });
    text = decode.text;
    if (decode.truncated) finish = 'length';
  }
  const obs = observeText(text, finish, { family, tools: c.tools.map((t) => t.function) });
  return { id: c.id, score: scoreTier(c, tierObservation(obs.strict)), decode };
}

/** Per-case outcomes of an arm: every layered metric (strict tier) and both layer readings. */
export function armOf(label: string, cases: readonly ProbeCase[], results: readonly SimDecodeCase[]): Arm {
  const outcomes: Record<string, Map<string, number>> = {};
  const put = (m: string, id: string, x: number) => (outcomes[m] ??= new Map()).set(id, x);
  const byId = new Map(cases.map((c) => [c.id, c]));
  const records: LayerRecord[] = [];
  for (const r of results) {
    put('accuracy', r.id, r.score.passed ? 1 : 0);
    for (const m of LAYERED_METRICS) if (r.score[m] !== null) put(m, r.id, r.score[m]!);
    if (r.decode) {
      put('forced', r.id, r.decode.forced ? 1 : 0);
      put('repetition', r.id, r.decode.repetition ? 1 : 0);
      put('truncated', r.id, r.decode.truncated ? 1 : 0);
    }
    const expects = byId.get(r.id)!.expected !== null;
    records.push({ id: r.id, error: null, expects_call: expects, scores: { strict: r.score, lenient: r.score } });
  }
  Object.assign(outcomes, layerOutcomes(records, 'strict'));
  return { label, outcomes };
}
