// One reply scored as the reference's score_prediction scores the extracted call: parsed here (extract.ts), the
// rest — name match, the environment's replay and execution, the gold API's own check, ToolSearcher — by the
// environment (env/). A frozen-cache miss without embeddings is undetermined (correct: null), never a silent false.
import { join } from 'node:path';
import { pyToJson } from '../core/pyliteral/index.ts';
import {
  commandEmbeddingFallback,
  loadDatabases,
  loadFrozenToolSearcher,
  scoreTask,
  type ApiBankTask,
  type ApiCall,
  type ScoreOptions,
  type ToolSearcherMode,
} from './env/index.ts';
import { ApiCallParseError, parseApiCall } from './extract.ts';
import { DATA_LAYOUT, toPlainJson, type ApibankTask } from './tasks.ts';

export interface ReplyVerdict {
  /** null: undetermined (a ToolSearcher frozen-cache miss with no embedding model). */
  correct: boolean | null;
  stage: 'parse' | 'api_name' | 'score';
  error: string | null;
  predicted_api_name: string | null;
  predicted_params: Record<string, unknown>;
}

/** The task as the environment takes it: plain JSON (floats read as `45.0` become numbers). */
export const envTaskOf = (t: ApibankTask): ApiBankTask =>
  toPlainJson({
    id: t.id,
    level: t.level,
    prior_api_turns: t.prior_api_turns,
    ground_truth: t.ground_truth,
    api_names: t.api_names,
  }) as unknown as ApiBankTask;

const scoringCache = new Map<string, ScoreOptions>();

/** The environment's inputs for a data folder (read once per process and setting). */
export function scoreOptionsFor(
  root: string,
  toolSearcher: ToolSearcherMode,
  embeddingCommand?: string[],
): ScoreOptions {
  const key = JSON.stringify([root, toolSearcher, embeddingCommand ?? null]);
  let o = scoringCache.get(key);
  if (!o) {
    o = {
      toolSearcher,
      databases: loadDatabases(join(root, DATA_LAYOUT.initDatabase)),
      frozen: {
        '2': loadFrozenToolSearcher(join(root, 'derived/toolsearcher_frozen_level2.json'), '2'),
        '3': loadFrozenToolSearcher(join(root, 'derived/toolsearcher_frozen_level3.json'), '3'),
      },
      ...(embeddingCommand?.length ? { embeddingFallback: commandEmbeddingFallback(embeddingCommand) } : {}),
    };
    scoringCache.set(key, o);
  }
  return o;
}

/** `toolsearcher_scorer(level)`: the flag when given, else official for levels 2 and 3 and keyword for level 1. */
export const toolSearcherModeOf = (flag: ToolSearcherMode | undefined, level: ApibankTask['level']): ToolSearcherMode =>
  flag ?? (level === '1' ? 'keyword' : 'official');

/** `score_prediction(task, extracted)`. */
export function scoreExtracted(task: ApibankTask, extracted: string, opts: ScoreOptions): ReplyVerdict {
  let call: ApiCall;
  try {
    const p = parseApiCall(extracted);
    call = { name: p.name, args: Object.fromEntries(p.params) };
  } catch (err) {
    if (!(err instanceof ApiCallParseError)) throw err;
    return {
      correct: false,
      stage: 'parse',
      error: `ValueError: ${err.message}`,
      predicted_api_name: null,
      predicted_params: {},
    };
  }
  const params = Object.fromEntries(Object.entries(call.args).map(([k, v]) => [k, pyToJson(v)]));
  if (call.name !== task.ground_truth.api_name)
    return {
      correct: false,
      stage: 'api_name',
      error: `API name mismatch: ${call.name} != ${task.ground_truth.api_name}`,
      predicted_api_name: call.name,
      predicted_params: params,
    };
  const r = scoreTask(envTaskOf(task), call, opts);
  return {
    correct: r.correct,
    stage: r.stage,
    error: r.correct === true ? null : (r.reason ?? (r.correct === null ? 'undetermined' : 'API result mismatch')),
    predicted_api_name: call.name,
    predicted_params: params,
  };
}
