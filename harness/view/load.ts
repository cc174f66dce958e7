import { readdirSync, readSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ZodType } from 'zod';
import { firstZodIssue } from '../core/errors.ts';
import { closeQuietly, lstatOrNull, openForReading, readOpened } from '../core/nofollow.ts';
import { scoredMetaSchema } from '../kit/generic.ts';
import { JOURNAL, MetaBase } from '../kit/journal.ts';
import { suiteNamed } from '../kit/registry.ts';
import { SummarySchema, type Summary } from '../report/summary.ts';
import { mapCase, type MappedCase } from './cases.ts';
import type { LoadProblem } from './model.ts';

/**
 * Reading one output directory for the viewer: summary.json, the journal (instances.jsonl), each case's trace file
 * (and the files beside it that its suite's case view names, such as Maze's evaluation), the suite's record files.
 * Nothing here throws on bad data: a file or line that does not pass its schema becomes a problem naming the file,
 * the line and the field, and the rest is shown. Files are read only inside the directory, and only regular files:
 * no folder between the directory and the file may be a link, nor the file (a journal names its trace paths: data,
 * not a command), and a FIFO or device is refused without blocking (core/nofollow.ts openForReading).
 */

/** A trace bigger than this is not read (the stored-size cap keeps real ones far smaller). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The trace files (and the files beside them) one page reads, in total: past it a case's trace is left out, and a
 * problem says so, rather than the page outgrowing what one string can hold.
 */
export const PAGE_TRACE_BUDGET_BYTES = 128 * 1024 * 1024;

/** What is left of a page's trace budget (shared by every run on the page). */
export interface TraceBudget {
  left: number;
}

export interface LoadedRun {
  dir: string;
  summary: Summary | null;
  /** The latest valid meta of every case, in journal order. */
  metas: Array<Record<string, unknown> & { id: string; trial: number; suite: string }>;
  cases: MappedCase[];
  problems: LoadProblem[];
}

export class ViewFileError extends Error {
  override name = 'ViewFileError';
}

/** `rel` inside `dir`, or null when it would leave it. */
export function insideDir(dir: string, rel: string): string | null {
  if (typeof rel !== 'string' || !rel || rel.includes('\0')) return null;
  const p = resolve(dir, rel);
  const r = relative(dir, p);
  return r && r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r) ? p : null;
}

/**
 * A file's text inside the run directory `dir` (openForReading's checks: no link on the way, only a regular file,
 * never blocking); ENOENT gives null. With `budget`, the file's size is taken from it, and a file over what is left
 * is not read.
 */
export function readTextNoFollow(dir: string, path: string, max = MAX_FILE_BYTES, budget?: TraceBudget): string | null {
  let opened: ReturnType<typeof openForReading>;
  try {
    opened = openForReading(path, { root: dir });
  } catch (err) {
    const m = (err as Error).message;
    throw new ViewFileError(m.startsWith(`${path} `) ? m.slice(path.length + 1) : m);
  }
  if (!opened) return null;
  const { fd, size } = opened;
  try {
    if (size > max) throw new ViewFileError(`is ${size} bytes, over the viewer's limit of ${max}`);
    if (budget && size > budget.left)
      throw new ViewFileError(
        `left out: ${size} bytes, and the page's budget of ${PAGE_TRACE_BUDGET_BYTES} bytes for trace files has ${budget.left} left`,
      );
    if (budget) budget.left -= size;
    return readOpened(fd, size).toString('utf8');
  } finally {
    closeQuietly(fd);
  }
}

function problemOf(file: string, line: number | undefined, err: unknown): LoadProblem {
  if (err && typeof err === 'object' && 'issues' in err) {
    const { field, message } = firstZodIssue(err as never);
    return { file, ...(line ? { line } : {}), ...(field ? { field } : {}), message };
  }
  return { file, ...(line ? { line } : {}), message: (err as Error).message ?? String(err) };
}

/** Parse a JSON file inside the run directory; a problem (file, field) instead of a throw. */
function readJsonFile(dir: string, rel: string, problems: LoadProblem[], budget: TraceBudget, field?: string): unknown {
  const path = insideDir(dir, rel);
  if (!path) {
    problems.push({
      file: join(dir, JOURNAL),
      ...(field ? { field } : {}),
      message: `the path ${JSON.stringify(rel)} leaves the run directory: not read`,
    });
    return undefined;
  }
  try {
    const text = readTextNoFollow(dir, path, MAX_FILE_BYTES, budget);
    if (text === null) {
      problems.push({ file: path, message: 'not found' });
      return undefined;
    }
    return JSON.parse(text);
  } catch (err) {
    problems.push({
      file: path,
      message: err instanceof SyntaxError ? `not valid JSON (${err.message})` : (err as Error).message,
    });
    return undefined;
  }
}

/** Where a line of a JSONL file is: its byte offset, its length in bytes and its 1-based number. */
export interface LineAt {
  offset: number;
  bytes: number;
  line: number;
}

/**
 * The lines of a JSONL file, read in chunks (a journal of 10^5 cases is never one string): each parsed, or a problem
 * naming the line; each with its byte offset, so one line can be read again later (the served viewer's case store).
 */
function jsonLines(
  dir: string,
  path: string,
  problems: LoadProblem[],
  onLine: (value: unknown, line: number, text: string, at: LineAt) => void,
): boolean {
  let opened: ReturnType<typeof openForReading>;
  try {
    opened = openForReading(path, { root: dir });
  } catch (err) {
    const m = (err as Error).message;
    problems.push({ file: path, message: m.startsWith(`${path} `) ? m.slice(path.length + 1) : m });
    return false;
  }
  if (!opened) return false;
  const { fd } = opened;
  try {
    let line = 0;
    const each = (buf: Buffer, offset: number) => {
      line++;
      const t = buf.toString('utf8');
      if (!t.trim()) return;
      let v: unknown;
      try {
        v = JSON.parse(t);
      } catch (err) {
        // A killed run's last write may be torn: still shown, as a problem of its line.
        problems.push({ file: path, line, message: `not valid JSON (${(err as Error).message})` });
        return;
      }
      onLine(v, line, t, { offset, bytes: buf.length, line });
    };
    eachLine(fd, each);
  } finally {
    closeQuietly(fd);
  }
  return true;
}

/** Every line of an open file (without its newline) and its byte offset, read 1 MiB at a time. */
function eachLine(fd: number, each: (line: Buffer, offset: number) => void): void {
  const chunk = Buffer.alloc(1024 * 1024);
  let carry: Buffer = Buffer.alloc(0);
  let carryAt = 0;
  let pos = 0;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, pos);
    if (n === 0) break;
    pos += n;
    let buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
      each(buf.subarray(start, nl), carryAt + start);
      start = nl + 1;
    }
    carryAt += start;
    buf = buf.subarray(start);
    carry = Buffer.from(buf); // copied: the chunk is reused
  }
  if (carry.length) each(carry, carryAt);
}

/** One line of a JSONL file again, by where jsonLines found it (the file's checks again: no link, regular file). */
function lineAt(dir: string, path: string, at: LineAt): string {
  const fd = openLines(dir, path);
  try {
    return readLineAt(fd, at);
  } finally {
    closeQuietly(fd);
  }
}

function openLines(dir: string, path: string): number {
  const opened = openForReading(path, { root: dir });
  if (!opened) throw new ViewFileError(`${path}: not found`);
  return opened.fd;
}

function readLineAt(fd: number, at: LineAt): string {
  const buf = Buffer.alloc(at.bytes);
  const n = readSync(fd, buf, 0, at.bytes, at.offset);
  return buf.subarray(0, n).toString('utf8');
}

/** Where a case's parts are: its journal line and its record lines (the served viewer reads them again on demand). */
export interface CaseLocation {
  journal: LineAt;
  records: Array<[file: string, at: LineAt]>;
}

/** What reading one case needs besides its lines: the run's folder, its summary and the journal schemas by suite. */
interface RunContext {
  dir: string;
  summary: Summary | null;
  schemaOf: (suite: string) => ZodType | null;
}

function runContext(dir: string, summary: Summary | null): RunContext {
  const schemas = new Map<string, ZodType | null>();
  return {
    dir,
    summary,
    schemaOf: (suite) => {
      if (!schemas.has(suite))
        schemas.set(
          suite,
          suiteNamed(suite)?.metaSchema ??
            (summary && summary.suite === suite ? scoredMetaSchema(summary.config) : null),
        );
      return schemas.get(suite)!;
    },
  };
}

/** A journal line checked: the meta, a problem (its schema failed), or null (another suite's line: not this run's). */
function checkMeta(
  ctx: RunContext,
  v: unknown,
  line: number,
): { meta: LoadedRun['metas'][number] } | { problem: LoadProblem } | null {
  const journal = join(ctx.dir, JOURNAL);
  const base = MetaBase.safeParse(v);
  if (!base.success) return { problem: problemOf(journal, line, base.error) };
  if (ctx.summary && base.data.suite !== ctx.summary.suite) return null; // another suite's line in a shared folder
  const full = ctx.schemaOf(base.data.suite)?.safeParse(v);
  if (full && !full.success) return { problem: problemOf(journal, line, full.error) };
  return { meta: v as LoadedRun['metas'][number] };
}

/** One case mapped from its journal line, its trace (and the files beside it) and its record lines. */
function mapOne(
  ctx: RunContext,
  meta: LoadedRun['metas'][number],
  line: number,
  records: Record<string, unknown>,
  budget: TraceBudget,
): { mapped: MappedCase; problems: LoadProblem[] } {
  const { dir } = ctx;
  const journal = join(dir, JOURNAL);
  const caseProblems: LoadProblem[] = [];
  const caseView = suiteNamed(meta.suite)?.caseView;
  const tracePath = typeof meta.trace === 'string' ? meta.trace : null;
  const trace = tracePath ? readJsonFile(dir, tracePath, caseProblems, budget, `line ${line}: trace`) : undefined;
  const files: Record<string, unknown> = {};
  let mapped: MappedCase;
  try {
    for (const [name, rel] of Object.entries((tracePath && caseView?.extraFiles?.(tracePath)) || {})) {
      const value = readJsonFile(dir, rel, caseProblems, budget);
      if (value !== undefined) files[name] = value;
    }
    mapped = mapCase({ suite: meta.suite, meta, trace, files, records }, caseView);
  } catch (err) {
    // A mapping is pure and total on valid metas; should one still fail, the case is shown with its line.
    caseProblems.push({ file: journal, line, message: `could not be shown: ${(err as Error).message}` });
    mapped = brokenCase(meta.id, meta.trial, JSON.stringify(meta), caseProblems[caseProblems.length - 1]!);
  }
  for (const p of mapped.problems)
    caseProblems.push({ file: tracePath ? join(dir, tracePath) : journal, field: p.field, message: p.message });
  return { mapped, problems: caseProblems };
}

function readSummary(dir: string, problems: LoadProblem[]): Summary | null {
  const summaryPath = join(dir, 'summary.json');
  try {
    const text = readTextNoFollow(dir, summaryPath);
    if (text === null)
      problems.push({ file: summaryPath, message: 'not found (no metrics to show; the cases come from the journal)' });
    else {
      const parsed = SummarySchema.safeParse(JSON.parse(text));
      if (parsed.success) return JSON.parse(text) as Summary;
      problems.push(problemOf(summaryPath, undefined, parsed.error));
    }
  } catch (err) {
    problems.push({
      file: summaryPath,
      message: err instanceof SyntaxError ? `not valid JSON (${err.message})` : (err as Error).message,
    });
  }
  return null;
}

/** The detail of a case whose detail the served viewer reads on demand (a placeholder in the loaded run). */
export const ON_DEMAND: MappedCase['detail'] = {
  key: '',
  input: null,
  expected: null,
  predicted: null,
  scorers: [],
  sections: [],
};

/**
 * Read one output directory (its summary may be missing or bad: the journal is still shown). `budget`: what is left
 * of the page's trace budget, shared by the runs of one page. With `rowsOnly`, each case is mapped (its row needs its
 * trace) but its detail is dropped for ON_DEMAND, and `locations` says where to read it again (readCase).
 */
export function loadRunDir(
  dir: string,
  budget: TraceBudget = { left: PAGE_TRACE_BUDGET_BYTES },
  o: { rowsOnly?: boolean } = {},
): LoadedRun & { locations: Map<string, CaseLocation> } {
  const problems: LoadProblem[] = [];
  const summary = readSummary(dir, problems);
  const ctx = runContext(dir, summary);
  const journal = join(dir, JOURNAL);
  const latest = new Map<string, { meta: LoadedRun['metas'][number]; at: LineAt }>();
  const broken = new Map<string, { id: string; trial: number; line: number; text: string; problem: LoadProblem }>();
  const found = jsonLines(dir, journal, problems, (v, line, text, at) => {
    const checked = checkMeta(ctx, v, line);
    if (!checked) return;
    const raw = v as { id?: unknown; trial?: unknown };
    const key = `${String(raw?.id)}#${Number(raw?.trial ?? 0)}`;
    if ('problem' in checked) {
      problems.push(checked.problem);
      if (typeof raw?.id === 'string')
        broken.set(key, {
          id: raw.id,
          trial: typeof raw.trial === 'number' ? raw.trial : 0,
          line,
          text,
          problem: checked.problem,
        });
      return;
    }
    broken.delete(key);
    latest.set(key, { meta: checked.meta, at });
  });
  if (!found) problems.push({ file: journal, message: 'not found: no cases to show' });

  const suite = summary?.suite ?? [...latest.values()][0]?.meta.suite ?? 'unknown';
  // Record files: one line per case, matched by id and trial.
  const records = new Map<string, Record<string, unknown>>();
  const recordsAt = new Map<string, Array<[string, LineAt]>>();
  for (const file of (suiteNamed(suite)?.recordFiles ?? []).filter((f) => f.endsWith('.jsonl'))) {
    const path = insideDir(dir, file);
    if (!path) continue;
    jsonLines(dir, path, problems, (v, _line, _text, at) => {
      const r = v as { id?: unknown; trial?: unknown };
      if (!r || typeof r !== 'object' || r.id === undefined) return;
      const key = `${String(r.id)}#${Number(r.trial ?? 0)}`;
      (records.get(key) ?? records.set(key, {}).get(key)!)[file] = v;
      if (o.rowsOnly) (recordsAt.get(key) ?? recordsAt.set(key, []).get(key)!).push([file, at]);
    });
  }

  const cases: MappedCase[] = [];
  const locations = new Map<string, CaseLocation>();
  for (const [key, { meta, at }] of latest) {
    const one = mapOne(ctx, meta, at.line, records.get(key) ?? {}, budget);
    problems.push(...one.problems);
    if (o.rowsOnly) {
      records.delete(key); // read again with the case
      locations.set(key, { journal: at, records: recordsAt.get(key) ?? [] });
      cases.push({ row: one.mapped.row, detail: ON_DEMAND, problems: [] });
    } else cases.push(one.mapped);
  }
  for (const b of broken.values())
    if (!latest.has(`${b.id}#${b.trial}`)) cases.push(brokenCase(b.id, b.trial, b.text, b.problem));
  return { dir, summary, metas: [...latest.values()].map((x) => x.meta), cases, problems, locations };
}

/** Reads one case of a run again (readCase); its journal schemas are built once, for every case it reads. */
export interface CaseReader {
  read(key: string, loc: CaseLocation): { detail: MappedCase['detail']; problems: LoadProblem[] } | null;
  /** Close the files it keeps open (with `keepOpen`). */
  close(): void;
}

/**
 * With `keepOpen`, the journal and record files are opened (and checked) once and kept open until `close`: an
 * export reads thousands of cases in one go, and opening the journal again for each was half the cost of reading
 * it. The served viewer opens them for each case (the run may be written to between two requests).
 */
export function caseReader(dir: string, summary: Summary | null, o: { keepOpen?: boolean } = {}): CaseReader {
  const ctx = runContext(dir, summary);
  const open = new Map<string, number>();
  const line = (path: string, at: LineAt): string => {
    if (!o.keepOpen) return lineAt(dir, path, at);
    let fd = open.get(path);
    if (fd === undefined) open.set(path, (fd = openLines(dir, path)));
    return readLineAt(fd, at);
  };
  return {
    read: (key, loc) => readCase(ctx, key, loc, line),
    close: () => {
      for (const fd of open.values()) closeQuietly(fd);
      open.clear();
    },
  };
}

/**
 * One case's detail read again from the run folder where loadRunDir found it: its journal line (checked again: the
 * file may have changed since), its record lines and its trace. Null when the line is no longer that case's.
 */
function readCase(
  ctx: RunContext,
  key: string,
  loc: CaseLocation,
  line: (path: string, at: LineAt) => string,
): { detail: MappedCase['detail']; problems: LoadProblem[] } | null {
  const { dir } = ctx;
  const journal = join(dir, JOURNAL);
  let v: unknown;
  try {
    v = JSON.parse(line(journal, loc.journal));
  } catch {
    return null;
  }
  const checked = checkMeta(ctx, v, loc.journal.line);
  if (!checked || 'problem' in checked || `${checked.meta.id}#${checked.meta.trial}` !== key) return null;
  const records: Record<string, unknown> = {};
  for (const [file, at] of loc.records) {
    const path = insideDir(dir, file);
    if (path) records[file] = JSON.parse(line(path, at));
  }
  const one = mapOne(ctx, checked.meta, loc.journal.line, records, { left: Number.POSITIVE_INFINITY });
  return { detail: one.mapped.detail, problems: one.problems };
}

/** A journal line that failed its schema: an error row in the ledger, its text and the problem in the case view. */
export function brokenCase(id: string, trial: number, lineText: string, problem: LoadProblem): MappedCase {
  const where = `${problem.file}${problem.line ? ` line ${problem.line}` : ''}${problem.field ? `: field ${problem.field}` : ''}`;
  const key = `${id}#${trial}`;
  return {
    row: {
      key,
      id,
      trial,
      order: Number.MAX_SAFE_INTEGER,
      status: 'error',
      reason: `unreadable journal line: ${where}: ${problem.message}`,
      tags: [],
      cause: null,
      predicted: null,
    },
    detail: {
      key,
      input: null,
      expected: null,
      predicted: null,
      scorers: [],
      sections: [
        { kind: 'text', title: 'Unreadable journal line', text: `${where}: ${problem.message}\n\n${lineText}` },
      ],
    },
    problems: [],
  };
}

/**
 * The run directories under the given paths: a path with summary.json or instances.jsonl is one; a folder of
 * them (`results/`, each suite's folder inside) gives each, and so does a folder of such folders one level down
 * (`results/` holding an eval's folder of one run per model, `toolgauge eval --model a,b`).
 */
export function runDirs(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths.map((x) => resolve(x))) {
    const isRun = (d: string) => !!lstatOrNull(join(d, 'summary.json')) || !!lstatOrNull(join(d, JOURNAL));
    if (isRun(p)) {
      out.push(p);
      continue;
    }
    let subs: string[] = [];
    try {
      subs = folders(p);
    } catch (err) {
      throw new ViewFileError(
        `${p}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (err as Error).message}`,
      );
    }
    // A folder inside that is no run may hold runs (one per model); unreadable, it holds none
    const runs = subs.flatMap((d) => (isRun(d) ? [d] : tryFolders(d).filter(isRun)));
    if (!runs.length)
      throw new ViewFileError(
        `${p}: no toolgauge output here (no summary.json or instances.jsonl, nor in a folder inside or one level further)`,
      );
    out.push(...runs);
  }
  return out;
}

/** The folders directly inside `dir` (never through a link), sorted by name. */
function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(dir, e.name))
    .sort();
}

function tryFolders(dir: string): string[] {
  try {
    return folders(dir);
  } catch {
    return [];
  }
}
