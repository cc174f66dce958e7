// BFCL's multi-turn checker (eval_checker/multi_turn_eval/multi_turn_checker.py): per turn, run the model's decoded
// steps and the ground truth in separate instances that keep their state across turns; after every turn whose
// ground truth is non-empty, the model must have produced calls, its instances must equal the ground truth's
// (state check), and every ground-truth call result must appear among all the model's results so far
// (response check, unordered, with multiplicity). Turns with an empty ground truth are executed but not checked
// (BFCL's irrelevance check for miss_func/miss_param exists but its runner never calls it).
import { isLongContext } from '../categories.ts';
import type { BfclExecutor, StateComparison } from '../executor.ts';

export interface MultiTurnResult {
  valid: boolean;
  error_type: string;
  error: string[];
  /** The turn the verdict was decided at. */
  turn?: number;
  differences?: StateComparison['differences'];
  missing?: string[];
  /** Per turn: the model's results per step, and the ground truth's results. */
  execution: Array<{ model: string[][]; ground_truth: string[] }>;
}

export interface MultiTurnInput {
  id: string;
  category: string;
  classes: readonly string[];
  initialConfigJson: string;
  /** The case's function names (held-out ones included): only these run, for the model and the ground truth. */
  functions: readonly string[];
  /** Decoded model calls: turn → step → call strings (empty and undecodable steps already dropped). */
  decoded: string[][][];
  groundTruth: string[][];
  /** BFCL names instances after the model (shows up only when a call string itself contains `name(`). */
  modelName?: string;
}

/** Multiset containment: every ground-truth item consumes one equal model item (BFCL's _is_subsequence_unordered). */
export function missingUnordered(groundTruth: readonly string[], model: readonly string[]): string[] {
  const pool = [...model];
  const missing: string[] = [];
  for (const item of groundTruth) {
    const k = pool.indexOf(item);
    if (k >= 0) pool.splice(k, 1);
    else missing.push(item);
  }
  return missing;
}

/** BFCL's instance-name prefix: `<model>_<id>` with `-./:` turned into `_` (done on the whole name). */
function label(model: string, id: string): string {
  return `${model}_${id}`;
}

export async function multiTurnChecker(exec: BfclExecutor, input: MultiTurnInput): Promise<MultiTurnResult> {
  const model = input.modelName ?? 'toolgauge';
  const longContext = isLongContext(input.category);
  // Two instances, each in a process of its own (see executor.ts): the ground truth runs apart from the model's calls.
  const spec = {
    classes: input.classes,
    initialConfigJson: input.initialConfigJson,
    longContext,
    functions: input.functions,
  };
  const modelHandle = await exec.start({ ...spec, label: label(`${model}_eval`, input.id) });
  const gtHandle = await exec.start({ ...spec, label: label(`${model}_ground_truth_eval`, input.id) });
  const execution: MultiTurnResult['execution'] = [];
  const allModelResults: string[] = [];
  try {
    for (let turn = 0; turn < input.groundTruth.length; turn++) {
      const gtCalls = input.groundTruth[turn]!;
      const steps = input.decoded[turn] ?? [];
      const modelResults: string[][] = [];
      for (const step of steps) modelResults.push(await exec.call(modelHandle, step));
      const gtResults = await exec.call(gtHandle, gtCalls);
      allModelResults.push(...modelResults.flat());
      execution.push({ model: modelResults, ground_truth: gtResults });

      if (gtCalls.length > 0 && (steps.length === 0 || (steps.length === 1 && steps[0]!.length === 0))) {
        return {
          valid: false,
          error_type: 'multi_turn:empty_turn_model_response',
          error: [`Model response list is empty for turn ${turn}`],
          turn,
          execution,
        };
      }
      if (gtCalls.length === 0) continue;

      const state = await exec.compare(modelHandle, gtHandle);
      if (!state.valid) {
        const cls = Object.keys(state.differences)[0];
        return {
          valid: false,
          error_type: 'multi_turn:instance_state_mismatch',
          error: [`Model instance for ${cls} does not match the state with ground truth instance.`],
          turn,
          differences: state.differences,
          execution,
        };
      }
      const missing = missingUnordered(gtResults, allModelResults);
      if (missing.length > 0) {
        return {
          valid: false,
          error_type: 'multi_turn:execution_response_mismatch',
          error: [
            `Model response execution results so far does not contain all the ground truth response execution results for turn ${turn}.`,
          ],
          turn,
          missing,
          execution,
        };
      }
    }
    return { valid: true, error_type: '', error: [], execution };
  } finally {
    await exec.close(modelHandle);
    await exec.close(gtHandle);
  }
}
