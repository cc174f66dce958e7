// Beyond BFCL, on the same outputs and never instead of BFCL's verdict: the probe's layers (parse, schema, tool,
// args) under a strict and a lenient parser tier, its four-cause attribution, BFCL's own checker with an optimal
// instead of a greedy parallel matching, and — where the verdicts part — a named class saying why
// ("BFCL verdict vs toolgauge verdict"). Pure functions of the case, the raw result and BFCL's verdict.
import type { OpenAITool } from '../core/chat.ts';
import { pyToJson, type PyValue } from '../core/pyliteral/index.ts';
import { parseToolCalls, type ParsedCall } from '../parse/index.ts';
import { attribute, type Tier, type Verdict } from '../calls/attribute/index.ts';
import type { ArgRule, ExpectedCall } from '../match/types.ts';
import { scoreTier, type LayeredScore, type TierObservation } from '../calls/score/index.ts';
import { checkKindOf, containsMultiTurnIrrelevance, isIrrelevance, languageOf } from './categories.ts';
import { simpleFunctionChecker, type DecodedCall } from './checker/ast.ts';
import type { BfclCase } from './data.ts';
import type { ResultFormat } from './decode.ts';
import { modelFacingDocs, toOpenAiToolsInPlace } from './prompt.ts';
import { goldCallsOf, javaSource, jsSource } from './render.ts';
import { BfclCrash, isStr } from './py.ts';
import { sameValue } from '../core/same-value.ts';
import { setOwn } from '../core/set-own.ts';
import type { BfclVerdict } from './score.ts';

export const DEVIATION_CLASSES = [
  'greedy_parallel_matching',
  'malformed_call_counted_as_abstention',
  'abstention_turn_not_checked',
  'bfcl_decoder_refuses',
  'bfcl_accepts_what_toolgauge_rejects',
  'bfcl_rejects_what_toolgauge_accepts',
] as const;
export type DeviationClass = (typeof DEVIATION_CLASSES)[number];

export interface Deviation {
  class: DeviationClass;
  bfcl: 'pass' | 'fail';
  toolgauge: 'pass' | 'fail';
  note: string;
}

export interface BeyondSingleTurn {
  kind: 'single_turn';
  layers: Record<Tier, LayeredScore>;
  calls: Record<Tier, ParsedCall[]>;
  attribution: Record<Tier, Verdict>;
  /** The strict tier passes (the output format's own parser, as a server would parse it). */
  toolgaugePass: boolean;
  /** The lenient tier passes: toolgauge's verdict where it is compared with BFCL's. */
  toolgaugePassLenient: boolean;
  /** BFCL's checker with an optimal matching of parallel calls (only for parallel categories BFCL failed). */
  bfclWithOptimalMatching?: boolean;
  deviation?: Deviation;
}

export interface BeyondMultiTurn {
  kind: 'multi_turn';
  /** Turns whose ground truth is empty (the model should ask or say it cannot) where the model made calls anyway. */
  callsOnAbstentionTurns: Array<{ turn: number; calls: string[] }>;
  deviation?: Deviation;
}

export type Beyond = BeyondSingleTurn | BeyondMultiTurn;

// ---------------------------------------------------------------------------------------------------------
// the expected calls in the probe's terms

const plainJson = (v: PyValue): unknown => pyToJson(v);
const isEmptyStr = (v: PyValue) => v.t === 'str' && v.v === '';

/** BFCL's answer key as the probe's expected calls: first allowed value, the others as equivalents, "" as optional. */
export function expectedCallsOf(c: BfclCase): ExpectedCall[] | null {
  if (checkKindOf(c.category) === 'relevance') return isIrrelevance(c.category) ? null : [];
  const gold = goldCallsOf(c);
  const pa = c.possibleAnswer;
  const language = languageOf(c.category);
  return gold.map((call, i) => {
    const rules: Record<string, ArgRule> = {};
    const item = pa?.t === 'list' ? pa.items[i] : undefined;
    const params = item?.t === 'dict' ? item.entries[0]?.[1] : undefined;
    const doc = c.entry.functions.find((f) => f.name === call.name);
    for (const [k, allowed] of params?.t === 'dict' ? params.entries : []) {
      if (!isStr(k) || (allowed.t !== 'list' && allowed.t !== 'tuple')) continue;
      const rule: ArgRule = {};
      if (allowed.items.some(isEmptyStr)) rule.optional = true;
      const pdoc = doc?.parameters.properties[k.v];
      const render = (v: PyValue): unknown =>
        language === 'java'
          ? javaSource(v, pdoc?.type ?? 'any', pdoc?.items?.type)
          : language === 'javascript'
            ? jsSource(v, pdoc?.type ?? 'any', pdoc?.items?.type)
            : plainJson(v);
      const others = allowed.items.filter((v) => !isEmptyStr(v)).slice(1);
      if (others.length) rule.equiv = others.map(render);
      if (Object.keys(rule).length) rules[k.v] = rule;
    }
    return { name: call.name, arguments: Object.fromEntries(call.args.map(([k, v]) => [k, plainJson(v)])), rules };
  });
}

// ---------------------------------------------------------------------------------------------------------
// what each parser tier sees

function restoreDotted(calls: ParsedCall[], names: readonly string[]): ParsedCall[] {
  return calls.map((call) => {
    if (names.includes(call.name)) return call;
    const dotted = names.find((n) => n.replace(/\./g, '_') === call.name);
    return dotted ? { ...call, name: dotted } : call;
  });
}

/** Strict and lenient observations of one raw result in one format. */
export function observe(
  result: PyValue,
  format: ResultFormat,
  tools: readonly OpenAITool[],
  underscoreToDot = false,
): Record<Tier, TierObservation> {
  const names = tools.map((t) => t.function.name);
  // Only FC names sent with dots replaced by underscores are mapped back; elsewhere `a_b` for `a.b` is a wrong name.
  const restoreDots = (calls: ParsedCall[], docNames: readonly string[]) =>
    underscoreToDot ? restoreDotted(calls, docNames) : calls;
  const schemas = tools.map((t) => t.function);
  if (format === 'fc' && result.t === 'list') {
    // tool_calls: each {name: arguments}; arguments that are not a JSON object are an unreadable call.
    const calls: ParsedCall[] = [];
    let broken = false;
    for (const item of result.items) {
      const first = item.t === 'dict' ? item.entries[0] : undefined;
      if (!first || !isStr(first[0])) {
        broken = true;
        continue;
      }
      let args: unknown;
      try {
        args = isStr(first[1]) ? JSON.parse(first[1].v) : plainJson(first[1]);
      } catch {
        broken = true;
        continue;
      }
      if (!args || typeof args !== 'object' || Array.isArray(args)) {
        broken = true;
        continue;
      }
      calls.push({ name: first[0].v, arguments: args as Record<string, unknown> });
    }
    const obs = {
      calls: broken ? [] : restoreDots(calls, names),
      attempted: result.items.length > 0,
      truncated: false,
    };
    return { strict: obs, lenient: { ...obs, calls: restoreDots(calls, names) } };
  }
  const text = isStr(result) ? result.v : JSON.stringify(plainJson(result));
  const family = format === 'hermes' ? 'hermes' : 'llama_pythonic';
  const strict =
    format === 'fc'
      ? { calls: [], attempted: false, truncated: false }
      : parseToolCalls(text, { tier: 'strict', format: family, tools: schemas });
  const lenient = parseToolCalls(text, { tier: 'lenient', tools: schemas });
  return {
    strict: {
      calls: restoreDots(strict.calls, names),
      attempted: strict.attempted || lenient.attempted,
      truncated: strict.truncated,
    },
    lenient: { calls: restoreDots(lenient.calls, names), attempted: lenient.attempted, truncated: lenient.truncated },
  };
}

// ---------------------------------------------------------------------------------------------------------
// BFCL's checker with an optimal parallel matching

/** Whether some one-to-one assignment of outputs to answers passes simple_function_checker for every pair. */
export function optimalParallelMatch(c: BfclCase, calls: DecodedCall[]): boolean {
  const answers = c.possibleAnswer?.t === 'list' ? c.possibleAnswer.items : [];
  if (answers.length !== calls.length) return false;
  const language = languageOf(c.category);
  const ok = answers.map((a) => {
    const name = a.t === 'dict' && isStr(a.entries[0]?.[0]) ? a.entries[0]![0].v : '';
    const doc = c.entry.functions.find((f) => f.name === name);
    return calls.map((call) => {
      try {
        return simpleFunctionChecker(doc, call, a, language, {}).valid;
      } catch (err) {
        if (err instanceof BfclCrash) return false;
        throw err;
      }
    });
  });
  // Kuhn's augmenting paths: a perfect matching exists iff every answer finds an output.
  const owner = new Array<number>(calls.length).fill(-1);
  const tryAnswer = (i: number, seen: boolean[]): boolean => {
    for (let j = 0; j < calls.length; j++) {
      if (!ok[i]![j] || seen[j]) continue;
      seen[j] = true;
      if (owner[j] === -1 || tryAnswer(owner[j]!, seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  return answers.every((_, i) => tryAnswer(i, new Array<boolean>(calls.length).fill(false)));
}

// ---------------------------------------------------------------------------------------------------------
// the comparison

/**
 * The tools the probe's scorer checks calls against: the model-facing docs as OpenAI tools, as JSON (floats as
 * numbers), without `format` annotations (BFCL's "float", data's "date" …: the schema checks know none).
 */
export function scoringTools(c: BfclCase): OpenAITool[] {
  const tools = toOpenAiToolsInPlace(modelFacingDocs(c.id, c.entry.functions), { underscores: false });
  return jsonWithoutFormats(tools) as OpenAITool[];
}

/**
 * JSON.parse(JSON.stringify(v)) with every string-valued `format` key left out, copied in one walk (the text
 * round trip cost more than the rest of building the tools): toJSON applied (PyFloat), non-finite numbers as null,
 * -0 as 0, undefined and functions left out of objects and null in arrays.
 */
export function jsonWithoutFormats(v: unknown): unknown {
  // JSON.stringify asks only objects for toJSON (PyFloat has one); strings and numbers are most of what is copied.
  const x =
    typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function'
      ? (v as { toJSON(): unknown }).toJSON()
      : v;
  switch (typeof x) {
    case 'number':
      return Number.isFinite(x) ? x + 0 : null;
    case 'string':
    case 'boolean':
      return x;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object': {
      if (x === null) return null;
      if (Array.isArray(x)) {
        const out = new Array<unknown>(x.length);
        for (let i = 0; i < x.length; i++) out[i] = jsonWithoutFormats(x[i]) ?? null;
        return out;
      }
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(x)) {
        const item = jsonWithoutFormats((x as Record<string, unknown>)[key]);
        if (item !== undefined && !(key === 'format' && typeof item === 'string')) setOwn(out, key, item);
      }
      return out;
    }
    default:
      return undefined;
  }
}

export function beyondSingleTurn(
  c: BfclCase,
  result: PyValue,
  format: ResultFormat,
  bfcl: BfclVerdict,
  opts: { underscoreToDot?: boolean } = {},
): BeyondSingleTurn {
  const tools = scoringTools(c);
  const obs = observe(result, format, tools, opts.underscoreToDot ?? false);
  // live_relevance has no answer key: any call counts, so the expected calls are the model's own (only the parse
  // and schema layers can fail).
  const relevance = checkKindOf(c.category) === 'relevance' && !isIrrelevance(c.category);
  const own = obs.lenient.calls.length ? obs.lenient.calls : obs.strict.calls;
  const expected = relevance
    ? own.length
      ? own.map((x) => ({ name: x.name, arguments: x.arguments }))
      : [{ name: c.entry.functions[0]?.name ?? '', arguments: {} }]
    : expectedCallsOf(c);
  const caseLike = { expected, tools, rules: {} };
  const strict = scoreTier(caseLike, obs.strict);
  // Both tiers mostly read the same calls; scoreTier is a pure function of them, so that score is copied.
  const lenient = sameValue(obs.lenient, obs.strict)
    ? { ...strict, problems: [...strict.problems], mismatches: [...strict.mismatches] }
    : scoreTier(caseLike, obs.lenient);
  const transport = format === 'fc' ? 'chat' : 'completions';
  const attribution = attribute({
    expectsCall: expected !== null,
    transport,
    family: format === 'fc' ? null : format === 'hermes' ? 'hermes' : 'llama_pythonic',
    original: { strict: { obs: obs.strict, score: strict }, lenient: { obs: obs.lenient, score: lenient } },
    template: null,
    counterfactual: null,
  });
  const out: BeyondSingleTurn = {
    kind: 'single_turn',
    layers: { strict, lenient },
    calls: { strict: obs.strict.calls, lenient: obs.lenient.calls },
    attribution,
    toolgaugePass: strict.passed,
    toolgaugePassLenient: lenient.passed,
  };
  if (
    !bfcl.valid &&
    bfcl.error_type === 'parallel_function_checker_no_order:cannot_find_match' &&
    bfcl.decoded?.t === 'list'
  ) {
    const calls = bfcl.decoded.items.map((item) => {
      const [name, params] = (item as { entries: Array<[PyValue, PyValue]> }).entries[0]!;
      return { name, params: (params as { entries: Array<[PyValue, PyValue]> }).entries };
    });
    out.bfclWithOptimalMatching = optimalParallelMatch(c, calls);
  }
  out.deviation = classify(c, bfcl, out);
  return out;
}

/**
 * Why the verdicts part. toolgauge's verdict here is the lenient tier's (what toolgauge can read in the output,
 * scored by the probe's rules); the strict tier is recorded beside it. Classes are tried in this order.
 */
function classify(c: BfclCase, bfcl: BfclVerdict, b: BeyondSingleTurn): Deviation | undefined {
  if (bfcl.undecided) return undefined;
  const tg = b.toolgaugePassLenient ? 'pass' : 'fail';
  const bf = bfcl.valid ? 'pass' : 'fail';
  if (b.bfclWithOptimalMatching) {
    return {
      class: 'greedy_parallel_matching',
      bfcl: 'fail',
      toolgauge: 'pass',
      note: 'BFCL pairs each answer with the first output it accepts; another pairing accepts every call',
    };
  }
  const triggered =
    b.calls.lenient.length > 0 || b.layers.strict.false_trigger === 1 || b.layers.lenient.false_trigger === 1;
  if (isIrrelevance(c.category) && bfcl.valid && triggered) {
    const seen = b.calls.lenient.length ? b.calls.lenient.map((x) => x.name).join(', ') : 'an attempted call';
    return {
      class: 'malformed_call_counted_as_abstention',
      bfcl: 'pass',
      toolgauge: 'fail',
      note: `BFCL's decoder found no call it could read and counted that as an abstention; toolgauge sees ${seen}`,
    };
  }
  const bfclSawNoCall = bfcl.decoded === undefined || (bfcl.decoded.t === 'list' && bfcl.decoded.items.length === 0);
  if (!bfcl.valid && bfclSawNoCall && b.toolgaugePassLenient) {
    return {
      class: 'bfcl_decoder_refuses',
      bfcl: 'fail',
      toolgauge: 'pass',
      note: `BFCL's decoder reads no call (${bfcl.error_type}); ${b.attribution.strict.cause === 'framework_parser_gap' ? 'a lenient parser finds the right call (parser gap)' : 'toolgauge reads the right call'}`,
    };
  }
  if (bf === tg) return undefined;
  const why = (bf === 'pass' ? b.layers.lenient.problems : [bfcl.error_type, ...bfcl.error]).join('; ');
  return bf === 'pass'
    ? { class: 'bfcl_accepts_what_toolgauge_rejects', bfcl: 'pass', toolgauge: 'fail', note: why }
    : { class: 'bfcl_rejects_what_toolgauge_accepts', bfcl: 'fail', toolgauge: 'pass', note: why };
}

/** Multi-turn: BFCL never checks the turns whose ground truth is empty (miss_func / miss_param). */
export function beyondMultiTurn(c: BfclCase, bfcl: BfclVerdict): BeyondMultiTurn {
  const callsOnAbstentionTurns: BeyondMultiTurn['callsOnAbstentionTurns'] = [];
  (c.groundTruth ?? []).forEach((gt, turn) => {
    const steps = bfcl.decodedTurns?.[turn] ?? [];
    if (gt.length === 0 && steps.length > 0) callsOnAbstentionTurns.push({ turn, calls: steps.flat() });
  });
  const out: BeyondMultiTurn = { kind: 'multi_turn', callsOnAbstentionTurns };
  if (bfcl.valid && callsOnAbstentionTurns.length > 0 && containsMultiTurnIrrelevance(c.category)) {
    out.deviation = {
      class: 'abstention_turn_not_checked',
      bfcl: 'pass',
      toolgauge: 'fail',
      note: `calls on turn(s) ${callsOnAbstentionTurns.map((t) => t.turn).join(', ')} where the model should have asked back or said it cannot; BFCL's runner never calls its irrelevance check`,
    };
  }
  return out;
}

/** The beyond-BFCL view of any case. */
export function beyondBfcl(
  c: BfclCase,
  result: PyValue,
  format: ResultFormat,
  bfcl: BfclVerdict,
  opts: { underscoreToDot?: boolean } = {},
): Beyond {
  return checkKindOf(c.category) === 'multi_turn'
    ? beyondMultiTurn(c, bfcl)
    : beyondSingleTurn(c, result, format, bfcl, opts);
}
