// API-Bank's tasks exactly as the reference runner builds them (docs/apibank.md, "Tasks"): the k-th API row of a
// level-1/2 dialogue is task `<file>::<2k>`, the j-th step of level-3 sample i is `level-3.json::<i>::<j>`, and the
// combined level prefixes `level-<k>::`. Rows are validated with zod; a bad row is one line naming file, row, field.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readDataText } from '../core/data-file.ts';
import { DataError, dataErrorFromZod } from '../core/errors.ts';
import { jsonToPy, pyRepr, pyToJson, type PyValue } from '../core/pyliteral/index.ts';
import { clonePlain, PyFloat, pyJsonLoads, PyJsonError, pyToPlain } from '../core/pyliteral/pyjson.ts';
import { normalizePy } from './extract.ts';

export const LEVELS = ['1', '2', '3'] as const;
export type Level = (typeof LEVELS)[number];
export type LevelArg = Level | 'all';

/** Where each part of the data lives under the data root (the layout of `../shared/data/apibank`). */
export const DATA_LAYOUT = {
  level1: 'api-bank/lv1-lv2-samples/level-1-given-desc',
  level2: 'api-bank/lv1-lv2-samples/level-2-toolsearcher',
  level3: 'api-bank/test_data/level-3.json',
  initDatabase: 'api-bank/init_database',
  evalIds: 'mas-promptbench/apibank_eval_ids.json',
  curated: (l: Level) => `derived/apibank_level${l}_curated.json`,
  prompts: 'mas-promptbench/prompts',
  prompted: 'derived/curated_tasks_single_prompts.jsonl',
  goldReplay: 'derived/gold_replay_all_753.json',
} as const;

const Json: z.ZodType<unknown> = z.unknown();

export const ApiResult = z
  .object({
    api_name: z.string().nullable().optional(),
    input: Json.optional(),
    output: Json.optional(),
    exception: Json.optional(),
  })
  .passthrough();

const UserRow = z.object({ role: z.literal('User'), text: z.string() }).passthrough();
const AiRow = z.object({ role: z.literal('AI'), text: z.string() }).passthrough();
const ApiRow = z
  .object({
    role: z.literal('API'),
    api_name: z.string().min(1),
    param_dict: z.record(z.string(), Json),
    result: ApiResult,
  })
  .passthrough();
export const DialogueRow = z.discriminatedUnion('role', [UserRow, AiRow, ApiRow]);
export type DialogueRow = z.infer<typeof DialogueRow>;
export type ApiRow = z.infer<typeof ApiRow>;

const Level3Step = z
  .object({ api_name: z.string().min(1), input: z.record(z.string(), Json).nullable().optional(), output: Json })
  .passthrough();
const Level3Sample = z
  .object({
    requirement: z.string().nullable().optional(),
    response: Json.optional(),
    apis: z.array(Level3Step).nullable().optional(),
  })
  .passthrough();

const Manifest = z.object({ ids: z.array(z.union([z.string(), z.number()]).transform(String)) }).passthrough();

/** One task, with the fields the reference's task dict has. */
export interface ApibankTask {
  /** The id in the run's level (`level-<k>::…` in the combined level). */
  id: string;
  /** The id within its own level. */
  source_id: string;
  level: Level;
  file: string;
  sample_id: number;
  api_index: number;
  api_names: string[];
  chat_history: DialogueRow[];
  prior_api_turns: ApiRow[];
  ground_truth: ApiRow;
  gold_api_call: string;
}

/** `"[Name(k=repr(v), …)]"`: the reference's gold call string (its traces and the gold replay use it). */
export function apiCallString(name: string, params: Array<[string, PyValue]>): string {
  return `[${name}(${params.map(([k, v]) => `${k}=${pyRepr(v)}`).join(', ')})]`;
}

/**
 * Data values as Python values: a float written with a point in the file (`45.0`, kept as PyFloat when read) stays
 * a float, as json.loads keeps it.
 */
export function plainToPy(x: unknown): PyValue {
  if (x instanceof PyFloat) return { t: 'float', v: x.value };
  if (Array.isArray(x)) return { t: 'list', items: x.map(plainToPy) };
  if (x && typeof x === 'object')
    return { t: 'dict', entries: Object.entries(x).map(([k, v]) => [{ t: 'str', v: k }, plainToPy(v)]) };
  return jsonToPy(x);
}

/** The data's JSON as plain values (PyFloat becomes a number): what the scorer and the record files get. */
export const toPlainJson = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** `normalize_params` of data (JSON) parameters, as Python values. */
export const normalizedPyParams = (p: Record<string, unknown> | null | undefined): Array<[string, PyValue]> =>
  Object.entries(p ?? {}).map(([k, v]) => [k, normalizePy(plainToPy(v))]);

/** JSON text read losslessly: key order kept, `45.0` kept a float (the prompts print it as Python does). */
function parseJsonText(text: string): unknown {
  try {
    return pyToPlain(pyJsonLoads(text));
  } catch (err) {
    if (err instanceof PyJsonError) throw new SyntaxError(err.message);
    throw err;
  }
}

const normalizeParams = (p: Record<string, unknown> | null | undefined): Record<string, unknown> =>
  Object.fromEntries(normalizedPyParams(p).map(([k, v]) => [k, v.t === 'float' ? new PyFloat(v.v) : pyToJson(v)]));

function readJson(path: string): unknown {
  const text = readDataText(path, 'the JSON file');
  try {
    return parseJsonText(text);
  } catch (err) {
    throw new DataError(path, undefined, undefined, `not JSON: ${(err as Error).message}`);
  }
}

/** The rows of one dialogue file, each validated (row numbers are 1-based lines). */
export function readDialogue(path: string): DialogueRow[] {
  const text = readDataText(path, 'the dialogue file');
  const rows: DialogueRow[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = parseJsonText(line);
    } catch (err) {
      throw new DataError(path, i + 1, undefined, `not JSON: ${(err as Error).message}`);
    }
    const r = DialogueRow.safeParse(raw);
    if (!r.success) throw dataErrorFromZod(path, i + 1, r.error);
    rows.push(r.data);
  });
  return rows;
}

function readLevel3(path: string): z.infer<typeof Level3Sample>[] {
  const raw = readJson(path);
  if (!Array.isArray(raw)) throw new DataError(path, undefined, undefined, 'expected a list of samples');
  return raw.map((s, i) => {
    const r = Level3Sample.safeParse(s);
    if (!r.success) throw dataErrorFromZod(path, i, r.error);
    return r.data;
  });
}

/** Reads the data root once per process and path: files are read on first use. */
export class ApibankData {
  private dialogues = new Map<string, DialogueRow[]>();
  private level3?: z.infer<typeof Level3Sample>[];
  constructor(readonly root: string) {}

  dialogue(level: '1' | '2', file: string): DialogueRow[] {
    const path = join(this.root, level === '1' ? DATA_LAYOUT.level1 : DATA_LAYOUT.level2, file);
    let rows = this.dialogues.get(path);
    if (!rows) this.dialogues.set(path, (rows = readDialogue(path)));
    return rows;
  }

  level3Samples(): z.infer<typeof Level3Sample>[] {
    return (this.level3 ??= readLevel3(join(this.root, DATA_LAYOUT.level3)));
  }

  dialogueFiles(level: '1' | '2'): string[] {
    return readdirSync(join(this.root, level === '1' ? DATA_LAYOUT.level1 : DATA_LAYOUT.level2))
      .filter((f) => f.endsWith('.jsonl'))
      .sort();
  }

  /** `_task_from_file` of levels 1 and 2: null for an odd sample id or one past the file's API rows. */
  taskFromFile(level: '1' | '2', file: string, sampleId: number): ApibankTask | null {
    if (sampleId % 2 !== 0 || sampleId < 0) return null;
    const rows = this.dialogue(level, file);
    const positions = rows.flatMap((r, i) => (r.role === 'API' ? [i] : []));
    const apiIndex = sampleId / 2;
    if (apiIndex >= positions.length) return null;
    const pos = positions[apiIndex]!;
    const ground = rows[pos] as ApiRow;
    const id = `${file}::${sampleId}`;
    return {
      id,
      source_id: id,
      level,
      file,
      sample_id: sampleId,
      api_index: apiIndex,
      api_names: [...new Set(rows.flatMap((r) => (r.role === 'API' ? [r.api_name] : [])))].sort(),
      chat_history: rows.slice(0, pos),
      prior_api_turns: rows.slice(0, pos).filter((r): r is ApiRow => r.role === 'API'),
      ground_truth: ground,
      gold_api_call: apiCallString(ground.api_name, normalizedPyParams(ground.param_dict)),
    };
  }

  /** `_level3_task_from_json`: earlier steps become API rows (param_dict normalized, result = the step's output). */
  taskFromLevel3(sampleId: number, apiId: number): ApibankTask | null {
    const samples = this.level3Samples();
    const sample = samples[sampleId];
    if (!sample) return null;
    const apis = sample.apis ?? [];
    if (apiId < 0 || apiId >= apis.length) return null;
    const rowOf = (s: z.infer<typeof Level3Step>): ApiRow => {
      const result = ApiResult.safeParse(s.output ?? {});
      if (!result.success)
        throw dataErrorFromZod(
          join(this.root, DATA_LAYOUT.level3),
          `${sampleId}.apis[${apiId}]`,
          result.error,
          'output',
        );
      return {
        role: 'API',
        api_name: s.api_name,
        param_dict: normalizeParams(s.input),
        result: clonePlain(result.data),
      };
    };
    const prior = apis.slice(0, apiId).map(rowOf);
    const ground = rowOf(apis[apiId]!);
    const id = `level-3.json::${sampleId}::${apiId}`;
    return {
      id,
      source_id: id,
      level: '3',
      file: 'level-3.json',
      sample_id: sampleId,
      api_index: apiId,
      api_names: [...new Set(apis.map((a) => a.api_name))].sort(),
      chat_history: [{ role: 'User', text: String(sample.requirement ?? '').trim() }, ...prior],
      prior_api_turns: prior,
      ground_truth: ground,
      gold_api_call: apiCallString(ground.api_name, normalizedPyParams(ground.param_dict)),
    };
  }

  /** A manifest id of one level (no prefix) → its task, or null when the id names no task. */
  taskOf(level: Level, id: string): ApibankTask | null {
    if (level === '3') {
      const parts = id.split('::');
      if (parts.length !== 3 || !/^\d+$/.test(parts[1]!) || !/^\d+$/.test(parts[2]!)) return null;
      return this.taskFromLevel3(Number(parts[1]), Number(parts[2]));
    }
    const cut = id.lastIndexOf('::');
    if (cut < 0 || !/^\d+$/.test(id.slice(cut + 2))) return null;
    const file = id.slice(0, cut);
    if (file.includes('/') || file.includes('\\') || file.startsWith('.')) return null;
    try {
      return this.taskFromFile(level, file, Number(id.slice(cut + 2)));
    } catch (err) {
      if (err instanceof DataError && /cannot read/.test(err.problem)) return null;
      throw err;
    }
  }

  /** Every task of a level in the reference's order (sorted files; level 3 in file order). */
  allTasks(level: Level): ApibankTask[] {
    if (level === '3')
      return this.level3Samples().flatMap((s, i) => (s.apis ?? []).map((_, j) => this.taskFromLevel3(i, j)!));
    return this.dialogueFiles(level).flatMap((f) => {
      const n = this.dialogue(level, f).filter((r) => r.role === 'API').length;
      return Array.from({ length: n }, (_, k) => this.taskFromFile(level, f, 2 * k)!);
    });
  }
}

/** `level-<k>::<source id>` → [k, source id]; a bare `level-3.json::…` is level 3; otherwise no level. */
export function parseCombinedId(id: string): [Level | '', string] {
  const m = /^level-([123])::(.*)$/s.exec(id);
  if (m) return [m[1] as Level, m[2]!];
  if (id.startsWith('level-3.json::')) return ['3', id];
  return ['', id];
}

export const combinedId = (level: Level, sourceId: string) => `level-${level}::${sourceId}`;

/** The default manifest of a level: the 100 frozen eval ids for `all`, the derived curated lists per level. */
export const manifestPath = (root: string, level: LevelArg): string =>
  join(root, level === 'all' ? DATA_LAYOUT.evalIds : DATA_LAYOUT.curated(level));

export function readManifest(path: string): string[] {
  const r = Manifest.safeParse(readJson(path));
  if (!r.success) throw dataErrorFromZod(path, undefined, r.error);
  return r.data.ids;
}

export interface Selection {
  level: LevelArg;
  /** A manifest file instead of the level's default. */
  manifest?: string;
  only?: string[];
  offset?: number;
  limit?: number;
}

/**
 * `load_instances`: the manifest's ids, filtered by `only` (an id or, in the combined level, the id without its
 * prefix), then `ids[offset:][:limit]`, each turned into its task. An id that names no task is a data error here
 * (the reference drops it silently; a frozen list with a dead id should be loud).
 */
export function selectTasks(data: ApibankData, sel: Selection): ApibankTask[] {
  const path = sel.manifest ?? manifestPath(data.root, sel.level);
  const wanted = sel.only?.length ? new Set(sel.only) : undefined;
  const matches = (id: string) => {
    if (!wanted || wanted.has(id)) return true;
    const [l, src] = parseCombinedId(id);
    return !!l && wanted.has(src);
  };
  let indexed = readManifest(path)
    .map((id, i) => [id, i] as const)
    .filter(([id]) => matches(id));
  indexed = indexed.slice(sel.offset ?? 0);
  if (sel.limit !== undefined) indexed = indexed.slice(0, sel.limit);
  const ids = indexed.map(([id]) => id);
  const manifestIndex = indexed.map(([, i]) => i);
  return ids.map((id, i) => {
    const task = taskOfManifestId(data, sel.level, id);
    if (!task) throw new DataError(path, undefined, `ids[${manifestIndex[i]}]`, `'${id}' names no API-Bank task`);
    return task;
  });
}

export function taskOfManifestId(data: ApibankData, level: LevelArg, id: string): ApibankTask | null {
  if (level !== 'all') return data.taskOf(level, id);
  const [sub, src] = parseCombinedId(id);
  for (const l of sub ? [sub] : LEVELS) {
    const t = data.taskOf(l, src);
    if (t) return { ...t, id: sub ? id : combinedId(l, src) };
  }
  return null;
}
