// One BFCL case scored exactly as BFCL's eval_runner scores it: relevance (decodes to a call or not), AST (decode,
// output-shape check, ast_checker), multi-turn (decode every step, run, check state and responses). The verdict
// carries BFCL's `valid` and `error_type`; where BFCL's Python would have raised (and aborted its run) it says
// `crash`, and where this emulation cannot decide it says `undecided` instead of guessing.
import type { PyValue } from '../core/pyliteral/index.ts';
import { checkKindOf, languageOf } from './categories.ts';
import { astChecker } from './checker/ast.ts';
import {
  multiTurnChecker,
  multiTurnCheckerBatch,
  type MultiTurnInput,
  type MultiTurnResult,
} from './checker/multi-turn.ts';
import { functionNamesOf, type BfclCase } from './data.ts';
import {
  decodeAst,
  decodeExecute,
  DecodeError,
  isEmptyExecuteResponse,
  isEmptyOutput,
  isFunctionCallingFormat,
  toDecodedCalls,
  type ResultFormat,
} from './decode.ts';
import type { BfclExecutor } from './executor.ts';
import { ExecutorError } from './executor-error.ts';
import { BfclCrash, BfclUnsupported } from './py.ts';
import { PyLiteralUnsupported } from '../core/pyliteral/index.ts';

export interface BfclVerdict {
  id: string;
  category: string;
  valid: boolean;
  /** BFCL's error_type ('' when valid). */
  error_type: string;
  error: string[];
  /** BFCL's Python raises here (an uncaught exception ends a BFCL run); toolgauge records the case as invalid. */
  crash?: string;
  /** The emulation cannot decide this output exactly (the reason); the case counts as invalid and is reported. */
  undecided?: string;
  /** Single-turn: what decode_ast returned (when it did). */
  decoded?: PyValue;
  /** Multi-turn: the decoded call strings per turn and step. */
  decodedTurns?: string[][][];
  multiTurn?: MultiTurnResult;
}

export interface ScoreOptions {
  format: ResultFormat;
  /** BFCL model-registry behaviour: function names were sent with dots replaced by underscores. */
  underscoreToDot?: boolean;
  /** Needed for multi-turn cases. */
  executor?: BfclExecutor;
  /** The model's name in BFCL's result tree (used in instance names; see InstanceSpec.label). */
  modelName?: string;
}

function verdict(
  c: BfclCase,
  valid: boolean,
  error_type: string,
  error: string[],
  extra: Partial<BfclVerdict> = {},
): BfclVerdict {
  return {
    id: c.id,
    category: c.category,
    valid,
    error_type: valid ? '' : error_type,
    error: valid ? [] : error,
    ...extra,
  };
}

function guard(c: BfclCase, fn: () => BfclVerdict): BfclVerdict {
  try {
    return fn();
  } catch (err) {
    if (err instanceof BfclCrash)
      return verdict(c, false, `checker_crash:${err.pyType}`, [err.message], { crash: err.message });
    if (err instanceof BfclUnsupported || err instanceof PyLiteralUnsupported)
      return verdict(c, false, 'toolgauge:undecided', [err.message], { undecided: err.message });
    throw err;
  }
}

/** _evaluate_single_relevance_entry and _evaluate_single_ast_entry. */
export function checkSingleTurn(c: BfclCase, result: PyValue, opts: ScoreOptions): BfclVerdict {
  return guard(c, () => {
    const kind = checkKindOf(c.category);
    const language = languageOf(c.category);
    if (kind === 'relevance') {
      // Always decoded as Python (decode_ast with ReturnFormat.PYTHON), whatever the category.
      let contains = false;
      let decoded: PyValue | undefined;
      let decodeError: string | undefined;
      try {
        decoded = decodeAst(opts.format, result);
        contains = !isEmptyOutput(decoded);
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        decodeError = err.message;
      }
      const irrelevance = c.category.includes('irrelevance');
      const ok = irrelevance ? !contains : contains;
      return irrelevance
        ? verdict(
            c,
            ok,
            'irrelevance_error:decoder_success',
            ['Valid syntax. Successfully decode AST when it should not.'],
            { decoded },
          )
        : verdict(
            c,
            ok,
            'relevance_error:decoder_failed',
            [`Invalid syntax. Failed to decode AST when it should have. ${decodeError ?? ''}`.trim()],
            { decoded },
          );
    }
    if (opts.format === 'pythonic' && language !== 'python') {
      throw new BfclUnsupported(
        `BFCL decodes prompt-mode ${language} output with its tree-sitter ${language} parser, which toolgauge does not emulate`,
      );
    }
    let decoded: PyValue;
    try {
      decoded = decodeAst(opts.format, result);
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
      return verdict(c, false, 'ast_decoder:decoder_failed', [`Invalid syntax. Failed to decode AST. ${err.message}`]);
    }
    if (!isFunctionCallingFormat(decoded)) {
      return verdict(c, false, 'ast_decoder:decoder_wrong_output_format', ['Did not output in the specified format.'], {
        decoded,
      });
    }
    if (!c.possibleAnswer) throw new BfclCrash('KeyError', `no possible answer for ${c.id}`);
    const r = astChecker(c.entry.functions, toDecodedCalls(decoded), c.possibleAnswer, language, c.category, {
      underscoreToDot: opts.underscoreToDot,
    });
    return verdict(c, r.valid, r.error_type, r.error, { decoded });
  });
}

/** _evaluate_single_multi_turn_entry: decode every step (failures and empty steps are skipped), then check. */
export async function checkMultiTurn(c: BfclCase, result: PyValue, opts: ScoreOptions): Promise<BfclVerdict> {
  const p = prepareMultiTurn(c, result, opts);
  if ('verdict' in p) return p.verdict;
  const r = await multiTurnChecker(executorOf(opts), p.input);
  return verdict(c, r.valid, r.error_type, r.error, { decodedTurns: p.input.decoded, multiTurn: r });
}

/** The verdict of a case whose check failed in the executor (its instance died or failed): invalid, with why. */
function executorCrash(c: BfclCase, err: ExecutorError): BfclVerdict {
  return verdict(c, false, 'checker_crash:ExecutorError', [err.message], { crash: err.message });
}

/**
 * Many cases scored as checkCase scores each, in order; multi-turn cases are checked in batches (two executor
 * requests per batch), each still in instances of its own. A case whose check fails in the executor is recorded as
 * invalid (`crash`), and the others keep their verdicts.
 */
export async function checkCases(
  items: ReadonlyArray<{ c: BfclCase; result: PyValue }>,
  opts: ScoreOptions,
): Promise<BfclVerdict[]> {
  const out: BfclVerdict[] = new Array(items.length);
  const batch: Array<{ k: number; input: MultiTurnInput }> = [];
  items.forEach(({ c, result }, k) => {
    if (checkKindOf(c.category) !== 'multi_turn') return void (out[k] = checkSingleTurn(c, result, opts));
    const p = prepareMultiTurn(c, result, opts);
    if ('verdict' in p) out[k] = p.verdict;
    else batch.push({ k, input: p.input });
  });
  if (batch.length) {
    const ran = await multiTurnCheckerBatch(
      executorOf(opts),
      batch.map((b) => b.input),
    );
    batch.forEach(({ k, input }, i) => {
      const c = items[k]!.c;
      const r = ran[i]!;
      out[k] =
        r instanceof ExecutorError
          ? executorCrash(c, r)
          : verdict(c, r.valid, r.error_type, r.error, { decodedTurns: input.decoded, multiTurn: r });
    });
  }
  return out;
}

function executorOf(opts: ScoreOptions): BfclExecutor {
  if (!opts.executor) throw new Error('checkMultiTurn needs an executor (BfclExecutor) for multi-turn cases');
  return opts.executor;
}

/** Everything before execution: a verdict when the result cannot reach it, else the checker's input. */
function prepareMultiTurn(
  c: BfclCase,
  result: PyValue,
  opts: ScoreOptions,
): { verdict: BfclVerdict } | { input: MultiTurnInput } {
  const gt = c.groundTruth;
  if (!gt)
    return { verdict: verdict(c, false, 'checker_crash:KeyError', ['no ground truth'], { crash: 'no ground truth' }) };
  if (result.t !== 'list')
    return {
      verdict: verdict(c, false, 'multi_turn:inference_error', [
        'Error during inference phase. Model did not output a list of model responses.',
      ]),
    };
  if (result.items.length !== gt.length) {
    return {
      verdict: verdict(c, false, 'multi_turn:force_terminated', [
        `Model was force-terminated during inference phase (${result.items.length} turns for ${gt.length}).`,
      ]),
    };
  }
  const decodedTurns: string[][][] = [];
  try {
    for (const turn of result.items) {
      const steps: string[][] = [];
      for (const step of turn.t === 'list' || turn.t === 'tuple' ? turn.items : iterate(turn)) {
        try {
          const calls = decodeExecute(opts.format, step);
          if (isEmptyExecuteResponse(calls)) continue;
          steps.push(calls);
        } catch (err) {
          if (err instanceof DecodeError) continue;
          throw err;
        }
      }
      decodedTurns.push(steps);
    }
  } catch (err) {
    if (err instanceof BfclUnsupported || err instanceof PyLiteralUnsupported)
      return { verdict: verdict(c, false, 'toolgauge:undecided', [err.message], { undecided: err.message }) };
    if (err instanceof BfclCrash)
      return { verdict: verdict(c, false, `checker_crash:${err.pyType}`, [err.message], { crash: err.message }) };
    throw err;
  }
  executorOf(opts);
  const e = c.entry;
  return {
    input: {
      id: c.id,
      category: c.category,
      classes: e.involvedClasses ?? [],
      initialConfigJson: e.initialConfigJson ?? '{}',
      functions: functionNamesOf(e),
      decoded: decodedTurns,
      groundTruth: gt,
      modelName: opts.modelName,
    },
  };
}

/** A str turn is iterated character by character in Python; anything else cannot be iterated. */
function iterate(v: PyValue): PyValue[] {
  if (v.t === 'str') return Array.from(v.v, (ch): PyValue => ({ t: 'str', v: ch }));
  if (v.t === 'dict') return v.entries.map(([k]) => k);
  throw new BfclCrash('TypeError', `'${v.t}' object is not iterable`);
}

/** Score one case whatever its kind. */
export async function checkCase(c: BfclCase, result: PyValue, opts: ScoreOptions): Promise<BfclVerdict> {
  return checkKindOf(c.category) === 'multi_turn' ? checkMultiTurn(c, result, opts) : checkSingleTurn(c, result, opts);
}
