import type { PyValue } from '../../core/pyliteral/index.ts';
import type { ApiBankLevel, ApiBankTask, ApiCall, Databases, ScoreOptions, ScoreResult } from './index.ts';
export function scoreTask(_task: ApiBankTask, _predicted: ApiCall | null, _opts: ScoreOptions): ScoreResult {
  throw new Error('not implemented yet');
}
/** The gold call scored as a prediction (the reference's gold_replay). */
export function replayGold(_task: ApiBankTask, _opts: ScoreOptions): ScoreResult {
  throw new Error('not implemented yet');
}
/** Execute one call on fresh databases after replaying `prior`; returns the result or throws the Python-like error. */
export function executeCall(_level: ApiBankLevel, _dbs: Databases, _prior: ApiBankTask['prior_api_turns'], _call: ApiCall): PyValue {
  throw new Error('not implemented yet');
}
