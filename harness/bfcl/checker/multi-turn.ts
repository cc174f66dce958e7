// BFCL's multi-turn checker (eval_checker/multi_turn_eval/multi_turn_checker.py): per turn, run the model's decoded
// steps and the ground truth in separate instances that keep their state across turns; after every turn whose
// ground truth is non-empty, the model must have produced calls, its instances must equal the ground truth's
// (state check), and every ground-truth call result must appear among all the model's results so far
// (response check, unordered, with multiplicity). Turns with an empty ground truth are executed but not checked
// (BFCL's irrelevance check for miss_func/miss_param exists but its runner never calls it).
import { isLongContext } from '../categories.ts';
import { ExecutorError } from '../executor-error.ts';
import type { BfclExecutor, CaseOutcome, CaseRun, InstanceSpec, StateComparison } from '../executor.ts';

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

/** The instance specs of a case: the model's run and the ground truth's, named as BFCL names them. */
function specsOf(input: MultiTurnInput): [InstanceSpec, InstanceSpec] {
  const model = input.modelName ?? 'toolgauge';
  const spec = {
    classes: input.classes,
    initialConfigJson: input.initialConfigJson,
    longContext: isLongContext(input.category),
    functions: input.functions,
  };
  return [
    { ...spec, label: label(`${model}_eval`, input.id) },
    { ...spec, label: label(`${model}_ground_truth_eval`, input.id) },
  ];
}

/**
 * The turns to run: every turn up to the first one whose ground truth has calls while the model gave none (BFCL
 * stops there, after running it); the state is compared after each turn with a non-empty ground truth but that one.
 */
function turnsOf(input: MultiTurnInput): CaseRun['turns'] {
  const turns: Array<CaseRun['turns'][number]> = [];
  for (let turn = 0; turn < input.groundTruth.length; turn++) {
    const gt = input.groundTruth[turn]!;
    const steps = input.decoded[turn] ?? [];
    const empty = gt.length > 0 && (steps.length === 0 || (steps.length === 1 && steps[0]!.length === 0));
    turns.push({ steps, groundTruth: gt, compare: gt.length > 0 && !empty });
    if (empty) break;
  }
  return turns;
}

/** BFCL's verdict from what ran: the first turn that fails decides (empty response, state, then responses). */
export function judgeTurns(input: MultiTurnInput, ran: CaseOutcome): MultiTurnResult {
  const execution: MultiTurnResult['execution'] = [];
  const allModelResults: string[] = [];
  for (const [turn, t] of ran.turns.entries()) {
    const gtCalls = input.groundTruth[turn]!;
    const steps = input.decoded[turn] ?? [];
    allModelResults.push(...t.model.flat());
    execution.push({ model: t.model, ground_truth: t.ground_truth });
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
    const state = t.state;
    if (!state) throw new ExecutorError(`BFCL executor: no state comparison for turn ${turn} of ${input.id}`);
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
    const missing = missingUnordered(t.ground_truth, allModelResults);
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
  if (ran.turns.length !== input.groundTruth.length)
    throw new ExecutorError(
      `BFCL executor: ${ran.turns.length} of ${input.groundTruth.length} turns ran for ${input.id}`,
    );
  return { valid: true, error_type: '', error: [], execution };
}

/**
 * Many cases checked in two executor requests. Each case still runs in two fresh instances of its own, and a case
 * whose instances fail gets an ExecutorError in its place while the others keep their verdicts. When the batch as a
 * whole fails (the worker died or timed out), its cases are checked one by one, so that only the case at fault
 * fails.
 */
export async function multiTurnCheckerBatch(
  exec: BfclExecutor,
  inputs: readonly MultiTurnInput[],
): Promise<Array<MultiTurnResult | ExecutorError>> {
  try {
    return await checkTogether(exec, inputs);
  } catch (err) {
    if (!(err instanceof ExecutorError) || inputs.length === 1) throw err;
    const out: Array<MultiTurnResult | ExecutorError> = [];
    for (const input of inputs) {
      try {
        out.push(...(await checkTogether(exec, [input])));
      } catch (one) {
        if (!(one instanceof ExecutorError)) throw one;
        out.push(one);
      }
    }
    return out;
  }
}

async function checkTogether(
  exec: BfclExecutor,
  inputs: readonly MultiTurnInput[],
): Promise<Array<MultiTurnResult | ExecutorError>> {
  // Two instances per case, each in a process of its own (see executor.ts): the ground truth runs apart from the
  // model's calls.
  const handles = await exec.startMany(inputs.flatMap(specsOf));
  const runs: CaseRun[] = [];
  const failed = new Map<number, ExecutorError>();
  inputs.forEach((input, k) => {
    const [m, g] = [handles[2 * k]!, handles[2 * k + 1]!];
    if (m instanceof ExecutorError || g instanceof ExecutorError) {
      failed.set(k, m instanceof ExecutorError ? m : (g as ExecutorError));
      for (const h of [m, g]) if (!(h instanceof ExecutorError)) void exec.close(h);
      return;
    }
    runs.push({ model: m, groundTruth: g, turns: turnsOf(input) });
  });
  const ran = await exec.runCases(runs);
  let next = 0;
  return inputs.map((input, k) => {
    const early = failed.get(k);
    if (early) return early;
    const r = ran[next++]!;
    if (r instanceof ExecutorError) return decidedBefore(input, r) ?? r;
    try {
      return judgeTurns(input, r);
    } catch (err) {
      if (err instanceof ExecutorError) return err;
      throw err;
    }
  });
}

/**
 * A case whose instance failed in a later turn keeps the verdict an earlier turn decided (the checker stops at the
 * first failing turn, before the failing one would have run); otherwise the failure stands.
 */
function decidedBefore(input: MultiTurnInput, err: ExecutorError): MultiTurnResult | undefined {
  if (!err.ranBefore) return undefined;
  try {
    const r = judgeTurns(input, { turns: err.ranBefore });
    return r.valid ? undefined : r;
  } catch (e) {
    if (e instanceof ExecutorError) return undefined;
    throw e;
  }
}

/** One case (a batch of one): an instance failure is thrown. */
export async function multiTurnChecker(exec: BfclExecutor, input: MultiTurnInput): Promise<MultiTurnResult> {
  const [r] = await multiTurnCheckerBatch(exec, [input]);
  if (r instanceof ExecutorError) throw r;
  return r!;
}
