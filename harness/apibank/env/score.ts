// The reference's score_prediction after parsing: exact API-name match; a gold ToolSearcher scored by
// toolsearcher.ts; otherwise a fresh session of API objects, every prior API row but ToolSearcher replayed with its
// recorded params, the predicted call executed, and the gold class's own check on deep copies of both results.
// Any Python exception on the way is a false verdict at stage 'score' with the reference's "<Type>: <msg>" text.
import { jsonToPy, type PyValue } from '../../core/pyliteral/index.ts';
import { ApiManager } from './manager.ts';
import { normalizeParams, normalizeValue } from './normalize.ts';
import { deepCopy, PyExc, Undetermined } from './py.ts';
import { scoreToolSearcher } from './toolsearcher.ts';
import type { ApiBankTask, ApiCall, ApiTurn, ScoreOptions, ScoreResult } from './index.ts';

function replay(m: ApiManager, prior: readonly ApiTurn[]): void {
  for (const row of prior)
    if (row.api_name !== 'ToolSearcher') m.apiCall(row.api_name, normalizeParams(row.param_dict));
}

export function scoreTask(task: ApiBankTask, predicted: ApiCall | null, opts: ScoreOptions): ScoreResult {
  const gold = task.ground_truth;
  if (predicted === null)
    return {
      correct: false,
      stage: 'parse',
      reason: 'ValueError: no [ApiName(...)] call found',
      goldResult: gold.result,
    };
  if (predicted.name !== gold.api_name) {
    return {
      correct: false,
      stage: 'api_name',
      reason: `API name mismatch: ${predicted.name} != ${gold.api_name}`,
      goldResult: gold.result,
    };
  }
  if (gold.api_name === 'ToolSearcher')
    return scoreToolSearcher(predicted, gold, task.level, opts.toolSearcher, opts.frozen, opts.embeddingFallback);
  let result: PyValue;
  try {
    const m = new ApiManager(task.level, opts.databases);
    replay(m, task.prior_api_turns);
    result = m.apiCall(predicted.name, Object.entries(predicted.args));
    const ok = m.initTool(predicted.name).check(deepCopy(result), deepCopy(jsonToPy(gold.result)));
    return {
      correct: ok,
      stage: 'score',
      reason: ok ? null : 'API result mismatch',
      predictedResult: result,
      goldResult: gold.result,
    };
  } catch (err) {
    if (err instanceof PyExc)
      return { correct: false, stage: 'score', reason: err.describe(), goldResult: gold.result };
    if (err instanceof Undetermined)
      return { correct: null, stage: 'score', reason: `undetermined: ${err.message}`, goldResult: gold.result };
    throw err;
  }
}

/** The reference's gold_replay: the gold call, written with repr and parsed back (so normalised twice), scored. */
export function replayGold(task: ApiBankTask, opts: ScoreOptions): ScoreResult {
  const args = Object.fromEntries(
    normalizeParams(task.ground_truth.param_dict).map(([k, v]) => [k, normalizeValue(v)]),
  );
  return scoreTask(task, { name: task.ground_truth.api_name, args }, opts);
}
