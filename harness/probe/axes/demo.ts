/**
 * Prints the decode comparison tables of the simulator (in process, no HTTP): `npx tsx harness/probe/axes/demo.ts`.
 * Free vs constrained (llama.cpp lazy grammar, Hermes format) on the bundled cases, for the planted format
 * failure and the planted decision failure. Simulator numbers calibrate the harness; they are not model results.
 */
import { constraintFor } from '../../constrain/requests.ts';
import { fromRoot } from '../../core/paths.ts';
import { loadCases } from '../cases/load.ts';
import { decodeComparison } from './compare-tables.ts';
import { armOf, runSimCase } from './sim-decode.ts';

const { cases } = loadCases(fromRoot('cases', 'probe', 'cases.jsonl'), { dateContext: '2025-06-02' });
const maxStringLength = process.argv[2] ? Number(process.argv[2]) : undefined;
const METRICS = [
  'accuracy',
  'parse_ok',
  'schema_valid.over_call_expected',
  'tool_correct.over_call_expected',
  'args_correct.over_call_expected',
  'tool_correct',
  'args_correct',
  'no_call',
  'false_trigger',
  'truncated',
  'repetition',
];

for (const behaviour of ['format_failure', 'decision_failure'] as const) {
  const free = cases.map((c) => runSimCase(c, behaviour, 'hermes', null));
  const constrained = cases.map((c) => {
    const k = constraintFor(
      'llamacpp',
      'hermes',
      c.tools.map((t) => t.function),
      { transport: 'completions', ...(maxStringLength ? { maxStringLength } : {}) },
    );
    if (!k.ok) throw new Error(k.reason);
    return runSimCase(c, behaviour, 'hermes', k.spec);
  });
  const a = armOf('free', cases, free);
  const b = armOf('constrained', cases, constrained);
  // free decoding has no decode record: its truncated / repetition outcomes are 0 by construction
  for (const m of ['truncated', 'repetition']) a.outcomes[m] = new Map([...b.outcomes[m]!.keys()].map((id) => [id, 0]));
  const t = decodeComparison(a, b, {
    title: `Decode comparison on sim:fault?cause=${behaviour} (simulator, ${cases.length} cases${maxStringLength ? `, --max-string-length ${maxStringLength}` : ''})`,
    metrics: METRICS,
    note: '> Simulator run: a calibration fixture plants one failure cause; these numbers describe the harness, not a model.',
  });
  console.log(t.markdown);
}
