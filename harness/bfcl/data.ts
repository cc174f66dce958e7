// Loading BFCL v4's files from a directory (the Hugging Face dataset's layout, also ../shared/data/bfcl/data):
// `BFCL_v4_<category>.json` (one test entry per line), `possible_answer/BFCL_v4_<category>.json` (paired with the
// entries by line, as BFCL pairs them) and `multi_turn_func_doc/<class file>.json`. Rows are validated with zod;
// possible answers are read losslessly (5 and 5.0 stay different) and every line keeps its raw text, so the
// multi-turn executor can hand `initial_config` to Python exactly as written.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DataError, dataErrorFromZod } from '../core/errors.ts';
import { MAX_LINE_CHARS, streamLines } from '../core/jsonl.ts';
import type { PyValue } from '../core/pyliteral/index.ts';
import { ALL_CATEGORIES, isMultiTurn, isRelevanceOrIrrelevance, type BfclCategory } from './categories.ts';
import type { FunctionDoc } from './checker/ast.ts';
import {
  clonePlain,
  pyJsonDumps,
  pyJsonLoads,
  PyJsonError,
  pyJsonToPlain,
  pyToPlain,
} from '../core/pyliteral/pyjson.ts';

export const VERSION_PREFIX = 'BFCL_v4';

/** The simulated API classes of the multi-turn categories and their function-doc files (executable_backend_config). */
export const CLASS_FUNC_DOC_FILES: Record<string, string> = {
  GorillaFileSystem: 'gorilla_file_system.json',
  MathAPI: 'math_api.json',
  MessageAPI: 'message_api.json',
  TwitterAPI: 'posting_api.json',
  TicketAPI: 'ticket_api.json',
  TradingBot: 'trading_bot.json',
  TravelAPI: 'travel_booking.json',
  VehicleControlAPI: 'vehicle_control.json',
};

// Cheap checks where rows are large (thousands of entries load per run): objects are checked for what the
// checker reads, and the rest passes through untouched.
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isMessage = (v: unknown) => isObject(v) && typeof v.role === 'string' && typeof v.content === 'string';
const isParam = (v: unknown) => isObject(v) && (v.type === undefined || typeof v.type === 'string');
const messageSchema = z.custom<{ role: string; content: string }>(isMessage, 'a message needs string role and content');
const paramSchema = z.custom<Record<string, unknown>>(isParam, 'a parameter must be an object whose type is a string');
export const functionDocSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z
      .object({
        type: z.string().optional(),
        properties: z.record(z.string(), paramSchema),
        required: z.array(z.string()).optional(),
      })
      .passthrough(),
  })
  .passthrough();

export const singleTurnEntrySchema = z
  .object({
    id: z.string().min(1),
    question: z.array(z.array(messageSchema)).min(1),
    function: z.array(functionDocSchema),
  })
  .passthrough();

// singleTurnEntrySchema's checks and output written out: zod's object parsing cost more than the rest of loading a
// wanted entry. The output is zod's: each object rebuilt with the shape's keys first (those present), then the
// others in input order; arrays and records rebuilt; messages, parameters and other values as they are.

/** singleTurnEntrySchema.safeParse(v).data, or undefined where zod might refuse it (zod then names the problem). */
export function quickSingleTurnEntry(v: unknown): z.infer<typeof singleTurnEntrySchema> | undefined {
  if (!plainFields(v) || typeof v.id !== 'string' || v.id.length < 1) return undefined;
  const { question, function: docs } = v;
  if (!Array.isArray(question) || question.length < 1 || !Array.isArray(docs)) return undefined;
  const turns: unknown[][] = [];
  for (const turn of question) {
    if (!Array.isArray(turn) || !each(turn, isMessage)) return undefined;
    turns.push(turn.slice());
  }
  const functions: unknown[] = [];
  for (const doc of docs) {
    const d = quickFunctionDoc(doc);
    if (!d) return undefined;
    functions.push(d);
  }
  return shaped(v, { id: v.id, question: turns, function: functions }) as z.infer<typeof singleTurnEntrySchema>;
}

function quickFunctionDoc(v: unknown): Record<string, unknown> | undefined {
  if (!plainFields(v) || typeof v.name !== 'string' || v.name.length < 1) return undefined;
  if ('description' in v && v.description !== undefined && typeof v.description !== 'string') return undefined;
  const p = v.parameters;
  if (!plainFields(p) || !plainFields(p.properties)) return undefined;
  if ('type' in p && p.type !== undefined && typeof p.type !== 'string') return undefined;
  const props = p.properties;
  const properties: Record<string, unknown> = {};
  for (const k of Object.keys(props)) {
    if (!isParam(props[k])) return undefined;
    properties[k] = props[k];
  }
  const required = p.required;
  if ('required' in p && required !== undefined && !(Array.isArray(required) && each(required, isString)))
    return undefined;
  const parameters = shaped(p, {
    type: p.type,
    properties,
    required: Array.isArray(required) ? required.slice() : required,
  });
  return shaped(v, { name: v.name, description: v.description, parameters });
}

const isString = (x: unknown) => typeof x === 'string';

/** Every element passes, holes included (a hole is undefined to zod; Array.prototype.every skips it). */
function each(xs: unknown[], ok: (x: unknown) => boolean): boolean {
  for (let i = 0; i < xs.length; i++) if (!ok(xs[i])) return false;
  return true;
}

/** A plain object without a `__proto__` key (which zod's rebuilt objects would not keep as a key). */
function plainFields(v: unknown): v is Record<string, unknown> {
  return isObject(v) && Object.getPrototypeOf(v) === Object.prototype && !Object.hasOwn(v, '__proto__');
}

/** The shape's keys present in `input` (in the shape's order, with the given values), then input's other keys. */
function shaped(input: Record<string, unknown>, shape: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(shape)) if (k in input) out[k] = shape[k];
  for (const k of Object.keys(input)) if (!(k in shape)) out[k] = input[k];
  return out;
}

const multiTurnEntrySchema = z
  .object({
    id: z.string().min(1),
    question: z.array(z.array(messageSchema)).min(1),
    initial_config: z.record(z.string(), z.unknown()),
    involved_classes: z.array(z.string()).min(1),
    missed_function: z.record(z.string(), z.array(z.string())).optional(),
    path: z.array(z.string()).optional(),
  })
  .passthrough();

export const answerSchema = z.object({ id: z.string(), ground_truth: z.array(z.unknown()) }).passthrough();
const multiTurnAnswerSchema = z.object({ id: z.string(), ground_truth: z.array(z.array(z.string())) }).passthrough();

export interface ChatTurnMessage {
  role: string;
  content: string;
}

export interface BfclEntry {
  id: string;
  category: BfclCategory;
  /** Messages per turn (single-turn entries have one turn). Multi-turn holdout turns are empty. */
  question: ChatTurnMessage[][];
  /**
   * The function docs as the checker reads them. For multi-turn entries: the docs of the involved classes minus the
   * held-out (missed) functions, in BFCL's order.
   */
  functions: FunctionDoc[];
  /** The line as written in the data file. */
  raw: string;
  /** Multi-turn only. */
  involvedClasses?: string[];
  /** Multi-turn only: turn index → function docs BFCL adds back at that turn. */
  missedFunctions?: Record<string, FunctionDoc[]>;
  /** Multi-turn only: `initial_config` as JSON text, exactly as written. */
  initialConfigJson?: string;
}

/** Every function a multi-turn entry documents, held-out ones included: the calls its executor may run. */
export function functionNamesOf(entry: BfclEntry): string[] {
  return [...entry.functions, ...Object.values(entry.missedFunctions ?? {}).flat()].map((f) => f.name);
}

export interface BfclCase {
  id: string;
  category: BfclCategory;
  entry: BfclEntry;
  /** Single-turn: the possible answers (list of `{name: {param: [allowed…]}}`). Absent for relevance categories. */
  possibleAnswer?: PyValue;
  /** Multi-turn: the ground-truth call strings per turn. */
  groundTruth?: string[][];
  /** The possible-answer line as written. */
  answerRaw?: string;
}

export function dataFile(dir: string, category: string): string {
  return join(dir, `${VERSION_PREFIX}_${category}.json`);
}
export function answerFile(dir: string, category: string): string {
  return join(dir, 'possible_answer', `${VERSION_PREFIX}_${category}.json`);
}

/** Non-empty lines of a JSON-lines file with their 1-based line numbers. */
function lines(file: string): Array<{ n: number; text: string }> {
  if (!existsSync(file)) throw new DataError(file, undefined, undefined, 'file not found');
  const out: Array<{ n: number; text: string }> = [];
  streamLines(file, ({ text, lineNo, tooLong }) => {
    if (tooLong) throw new DataError(file, lineNo, undefined, `line longer than ${MAX_LINE_CHARS} characters`);
    if (text.trim() !== '') out.push({ n: lineNo, text });
  });
  return out;
}

/** One JSON line, lossless. */
function parsePyLine(file: string, n: number, text: string): PyValue {
  try {
    return pyJsonLoads(text);
  } catch (err) {
    if (err instanceof PyJsonError) throw new DataError(file, n, undefined, `not valid JSON: ${err.message}`);
    throw err;
  }
}

/** One JSON line as plain data with floats kept as PyFloat (so docs print back as Python prints them). */
function parseJsonLine(file: string, n: number, text: string): unknown {
  try {
    return pyJsonToPlain(text);
  } catch (err) {
    if (err instanceof PyJsonError) throw new DataError(file, n, undefined, `not valid JSON: ${err.message}`);
    throw err;
  }
}

/** The function docs of one simulated class (multi_turn_func_doc). */
export function loadClassFuncDocs(dir: string, className: string): FunctionDoc[] {
  const fileName = CLASS_FUNC_DOC_FILES[className];
  if (!fileName)
    throw new DataError(join(dir, 'multi_turn_func_doc'), undefined, 'involved_classes', `unknown class ${className}`);
  const file = join(dir, 'multi_turn_func_doc', fileName);
  return lines(file).map(({ n, text }) => {
    const parsed = functionDocSchema.safeParse(parseJsonLine(file, n, text));
    if (!parsed.success) throw dataErrorFromZod(file, n, parsed.error);
    return parsed.data as unknown as FunctionDoc;
  });
}

/** The entries of one category (no answers). */
export function loadEntries(dir: string, category: BfclCategory): BfclEntry[] {
  const { picked, entryOf } = readEntries(dir, category);
  return picked.map(entryOf);
}

// `{"id": "…"` at the start of a line whose text holds no other `"id"`: the line's only id key, so its value is the
// id JSON.parse would read (a string without escapes reads as written). Any other line is parsed to find its id.
const LEADING_ID = /^\s*\{\s*"id"\s*:\s*"([^"\\]*)"/;

/** A line's id when LEADING_ID reads it for certain, else undefined. */
export function leadingId(text: string): string | undefined {
  const m = LEADING_ID.exec(text);
  return m && text.indexOf('"id"', m[0].length) < 0 ? m[1] : undefined;
}

/** A data line picked for a case: parsed already (`entry`), or its text, parsed when the case is read. */
type PickedLine = { k: number; id: string; n: number; text: string; entry?: BfclEntry };

/**
 * The entries of one category, each with its index among the file's lines (answers pair with entries by line), and
 * every entry's id in file order. With `wanted`, a line whose id is read without parsing it (leadingId) is checked
 * for a repeated id only; it is parsed and validated when `entryOf` reads it (and never if it is not wanted: a
 * rescore of 200 results does not read the other thousand entries). Any other line is parsed here, for its id.
 */
function readEntries(
  dir: string,
  category: BfclCategory,
  wanted?: ReadonlySet<string>,
): { ids: string[]; picked: PickedLine[]; entryOf: (p: PickedLine) => BfclEntry } {
  const file = dataFile(dir, category);
  const docCache = new Map<string, FunctionDoc[]>();
  const classDocs = (cls: string) => {
    if (!docCache.has(cls)) docCache.set(cls, loadClassFuncDocs(dir, cls));
    return docCache.get(cls)!;
  };
  const firstLine = new Map<string, number>();
  const ids: string[] = [];
  const picked: PickedLine[] = [];
  lines(file).forEach(({ n, text }, k) => {
    const id = wanted ? leadingId(text) : undefined;
    if (id !== undefined) {
      noDuplicate(file, firstLine, id, n);
      ids.push(id);
      if (wanted!.has(id)) picked.push({ k, id, n, text });
      return;
    }
    const entry = parseEntry(file, category, n, text, classDocs, (id) => noDuplicate(file, firstLine, id, n));
    ids.push(entry.id);
    if (!wanted || wanted.has(entry.id)) picked.push({ k, id: entry.id, n, text, entry });
  });
  // The id of a line read later was checked for repeats above.
  const entryOf = (p: PickedLine) => p.entry ?? parseEntry(file, category, p.n, p.text, classDocs, () => {});
  return { ids, picked, entryOf };
}

/** One line of a category's data file, validated. */
function parseEntry(
  file: string,
  category: BfclCategory,
  n: number,
  text: string,
  classDocs: (cls: string) => FunctionDoc[],
  onId: (id: string) => void,
): BfclEntry {
  if (isMultiTurn(category)) {
    const py = parsePyLine(file, n, text);
    const json = pyToPlain(py);
    const parsed = multiTurnEntrySchema.safeParse(json);
    if (!parsed.success) throw dataErrorFromZod(file, (json as { id?: string })?.id ?? n, parsed.error);
    const e = parsed.data;
    onId(e.id);
    // populate_test_cases_with_predefined_functions: all docs of the involved classes, minus held-out ones.
    const functions = e.involved_classes.flatMap((c) => classDocs(c).map((d) => clonePlain(d)));
    const missedFunctions: Record<string, FunctionDoc[]> = {};
    for (const [turn, names] of Object.entries(e.missed_function ?? {})) {
      missedFunctions[turn] = [];
      for (const name of names) {
        const k = functions.findIndex((f) => f.name === name);
        if (k >= 0) missedFunctions[turn]!.push(functions.splice(k, 1)[0]!);
      }
    }
    return {
      id: e.id,
      category,
      question: e.question,
      functions,
      raw: text,
      involvedClasses: e.involved_classes,
      missedFunctions,
      initialConfigJson: initialConfigText(py),
    } satisfies BfclEntry;
  }
  const json = parseJsonLine(file, n, text);
  let e = quickSingleTurnEntry(json);
  if (!e) {
    const parsed = singleTurnEntrySchema.safeParse(json);
    if (!parsed.success) throw dataErrorFromZod(file, (json as { id?: string })?.id ?? n, parsed.error);
    e = parsed.data;
  }
  onId(e.id);
  return {
    id: e.id,
    category,
    question: e.question,
    functions: e.function as unknown as FunctionDoc[],
    raw: text,
  } satisfies BfclEntry;
}

/** Ids name instances: a repeated one would merge two rows' results, so it is an error naming both lines. */
function noDuplicate(file: string, firstLine: Map<string, number>, id: string, n: number): void {
  const prev = firstLine.get(id);
  if (prev !== undefined) throw new DataError(file, `${n} (${id})`, 'id', `duplicate id (first on line ${prev})`);
  firstLine.set(id, n);
}

/** `initial_config` of a multi-turn line as JSON text that keeps each number's int or float form. */
function initialConfigText(line: PyValue): string {
  const cfg =
    line.t === 'dict' ? line.entries.find(([k]) => k.t === 'str' && k.v === 'initial_config')?.[1] : undefined;
  return cfg ? pyJsonDumps(cfg) : '{}';
}

/** One category: entries paired with their possible answers by line (BFCL's _subset_entries_by_model_ids). */
export function loadCategory(dir: string, category: BfclCategory): BfclCase[] {
  const { picked, caseOf } = readCases(dir, category);
  return picked.map(caseOf);
}

/**
 * The cases of one category whose ids `wanted` holds (in file order), and every id in its data file. Only those
 * cases' lines are parsed and validated (readEntries): the rest of the file is read for its ids and its line count.
 */
export function loadCategoryCases(
  dir: string,
  category: BfclCategory,
  wanted: ReadonlySet<string>,
): { cases: BfclCase[]; ids: string[] } {
  const { ids, picked, caseOf } = readCases(dir, category, wanted);
  return { cases: picked.map(caseOf), ids };
}

/**
 * loadCategoryCases with each case parsed and validated when `read` asks for it (a bad line is refused then), so
 * that a rescore holds the cases of one batch instead of a category's: parsed up front, each case outlived V8's
 * young generation and was copied twice on its way to the old one (about half of a single-turn rescore's
 * scavenges' time). The ids are all read, and checked for repeats, at once.
 */
export function categoryCaseReader(
  dir: string,
  category: BfclCategory,
  wanted: ReadonlySet<string>,
): { ids: string[]; has: (id: string) => boolean; read: (id: string) => BfclCase } {
  const { ids, picked, caseOf } = readCases(dir, category, wanted);
  const byId = new Map(picked.map((p) => [p.id, p]));
  return {
    ids,
    has: (id) => byId.has(id),
    read: (id) => {
      const p = byId.get(id);
      if (!p) throw new Error(`${dataFile(dir, category)}: no case ${id} was asked for`);
      return caseOf(p);
    },
  };
}

function readCases(
  dir: string,
  category: BfclCategory,
  wanted?: ReadonlySet<string>,
): { ids: string[]; picked: PickedLine[]; caseOf: (p: PickedLine) => BfclCase } {
  const { ids, picked, entryOf } = readEntries(dir, category, wanted);
  if (isRelevanceOrIrrelevance(category))
    return { ids, picked, caseOf: (p) => ({ id: p.id, category, entry: entryOf(p) }) };
  const file = answerFile(dir, category);
  const answerLines = lines(file);
  if (answerLines.length !== ids.length) {
    throw new DataError(
      file,
      undefined,
      undefined,
      `${answerLines.length} possible answers for ${ids.length} entries in ${dataFile(dir, category)}`,
    );
  }
  const caseOf = (p: PickedLine): BfclCase => {
    const entry = entryOf(p);
    const { n, text } = answerLines[p.k]!;
    if (isMultiTurn(category)) {
      const json = parseJsonLine(file, n, text);
      const parsed = multiTurnAnswerSchema.safeParse(json);
      if (!parsed.success) throw dataErrorFromZod(file, entry.id, parsed.error);
      if (parsed.data.ground_truth.length !== entry.question.length) {
        throw new DataError(
          file,
          entry.id,
          'ground_truth',
          `${parsed.data.ground_truth.length} turns for ${entry.question.length} in the question`,
        );
      }
      return { id: entry.id, category, entry, groundTruth: parsed.data.ground_truth, answerRaw: text };
    }
    // Read once, losslessly (the checker tells 5 from 5.0); the schema checks its plain form.
    const lossless = parsePyLine(file, n, text);
    const parsed = answerSchema.safeParse(answerShape(lossless));
    if (!parsed.success) throw dataErrorFromZod(file, entry.id, parsed.error);
    const gt =
      lossless.t === 'dict'
        ? lossless.entries.find(([key]) => key.t === 'str' && key.v === 'ground_truth')?.[1]
        : undefined;
    if (!gt) throw new DataError(file, entry.id, 'ground_truth', 'missing');
    return { id: entry.id, category, entry, possibleAnswer: gt, answerRaw: text };
  };
  return { ids, picked, caseOf };
}

/**
 * A possible-answer line as answerSchema checks it: its top-level fields, each list among them standing as an empty
 * array (the schema checks `ground_truth` is a list, never its items, which the checker reads from the lossless
 * value), so the answers are not converted only to be dropped.
 */
export function answerShape(line: PyValue): unknown {
  if (line.t !== 'dict') return pyToPlain(line);
  const isList = (v: PyValue) => v.t === 'list' || v.t === 'tuple' || v.t === 'set';
  return pyToPlain({
    t: 'dict',
    entries: line.entries.map(([k, v]): [PyValue, PyValue] => [k, isList(v) ? { t: 'list', items: [] } : v]),
  });
}

/** Several categories in BFCL's order. */
export function loadCategories(dir: string, categories: readonly BfclCategory[]): BfclCase[] {
  const order = ALL_CATEGORIES as readonly string[];
  return [...categories].sort((a, b) => order.indexOf(a) - order.indexOf(b)).flatMap((c) => loadCategory(dir, c));
}

/** Which of the categories have their files in `dir` (for a visible skip or a one-line error). */
export function missingFiles(dir: string, categories: readonly BfclCategory[]): string[] {
  const out: string[] = [];
  for (const c of categories) {
    if (!existsSync(dataFile(dir, c))) out.push(dataFile(dir, c));
    if (!isRelevanceOrIrrelevance(c) && !existsSync(answerFile(dir, c))) out.push(answerFile(dir, c));
  }
  return out;
}
