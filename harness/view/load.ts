import { readdirSync } from 'node:fs';
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

/** The lines of a JSONL file: each parsed, or a problem naming the line. */
function jsonLines(
  dir: string,
  path: string,
  problems: LoadProblem[],
  onLine: (value: unknown, line: number, text: string) => void,
): boolean {
  let text: string | null;
  try {
    text = readTextNoFollow(dir, path);
  } catch (err) {
    problems.push({ file: path, message: (err as Error).message });
    return false;
  }
  if (text === null) return false;
  const lines = text.split('\n');
  lines.forEach((t, i) => {
    if (!t.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch (err) {
      // A killed run's last write may be torn: still shown, as a problem of its line.
      problems.push({ file: path, line: i + 1, message: `not valid JSON (${(err as Error).message})` });
      return;
    }
    onLine(v, i + 1, t);
  });
  return true;
}

/**
 * Read one output directory (its summary may be missing or bad: the journal is still shown). `budget`: what is left
 * of the page's trace budget, shared by the runs of one page.
 */
export function loadRunDir(dir: string, budget: TraceBudget = { left: PAGE_TRACE_BUDGET_BYTES }): LoadedRun {
  const problems: LoadProblem[] = [];
  const summaryPath = join(dir, 'summary.json');
  let summary: Summary | null = null;
  try {
    const text = readTextNoFollow(dir, summaryPath);
    if (text === null)
      problems.push({ file: summaryPath, message: 'not found (no metrics to show; the cases come from the journal)' });
    else {
      const parsed = SummarySchema.safeParse(JSON.parse(text));
      if (parsed.success) summary = JSON.parse(text) as Summary;
      else problems.push(problemOf(summaryPath, undefined, parsed.error));
    }
  } catch (err) {
    problems.push({
      file: summaryPath,
      message: err instanceof SyntaxError ? `not valid JSON (${err.message})` : (err as Error).message,
    });
  }

  const journal = join(dir, JOURNAL);
  const latest = new Map<string, { meta: LoadedRun['metas'][number]; line: number }>();
  const broken = new Map<string, { id: string; trial: number; line: number; text: string; problem: LoadProblem }>();
  const schemas = new Map<string, ZodType | null>();
  const schemaOf = (suite: string): ZodType | null => {
    if (!schemas.has(suite))
      schemas.set(
        suite,
        suiteNamed(suite)?.metaSchema ?? (summary && summary.suite === suite ? scoredMetaSchema(summary.config) : null),
      );
    return schemas.get(suite)!;
  };
  const found = jsonLines(dir, journal, problems, (v, line, text) => {
    const base = MetaBase.safeParse(v);
    let problem: LoadProblem | null = null;
    if (!base.success) problem = problemOf(journal, line, base.error);
    else {
      if (summary && base.data.suite !== summary.suite) return; // another suite's line in a shared folder
      const schema = schemaOf(base.data.suite);
      const full = schema?.safeParse(v);
      if (full && !full.success) problem = problemOf(journal, line, full.error);
    }
    const raw = v as { id?: unknown; trial?: unknown };
    const key = `${String(raw?.id)}#${Number(raw?.trial ?? 0)}`;
    if (problem) {
      problems.push(problem);
      if (typeof raw?.id === 'string')
        broken.set(key, { id: raw.id, trial: typeof raw.trial === 'number' ? raw.trial : 0, line, text, problem });
      return;
    }
    broken.delete(key);
    latest.set(key, { meta: v as LoadedRun['metas'][number], line });
  });
  if (!found) problems.push({ file: journal, message: 'not found: no cases to show' });

  const suite = summary?.suite ?? [...latest.values()][0]?.meta.suite ?? 'unknown';
  // Record files: one line per case, matched by id and trial.
  const records = new Map<string, Record<string, unknown>>();
  for (const file of (suiteNamed(suite)?.recordFiles ?? []).filter((f) => f.endsWith('.jsonl'))) {
    const path = insideDir(dir, file);
    if (!path) continue;
    jsonLines(dir, path, problems, (v) => {
      const r = v as { id?: unknown; trial?: unknown };
      if (!r || typeof r !== 'object' || r.id === undefined) return;
      const key = `${String(r.id)}#${Number(r.trial ?? 0)}`;
      (records.get(key) ?? records.set(key, {}).get(key)!)[file] = v;
    });
  }

  const cases: MappedCase[] = [];
  for (const [key, { meta, line }] of latest) {
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
      mapped = mapCase({ suite: meta.suite, meta, trace, files, records: records.get(key) ?? {} }, caseView);
    } catch (err) {
      // A mapping is pure and total on valid metas; should one still fail, the case is shown with its line.
      caseProblems.push({ file: journal, line, message: `could not be shown: ${(err as Error).message}` });
      mapped = brokenCase(meta.id, meta.trial, JSON.stringify(meta), caseProblems[caseProblems.length - 1]!);
    }
    for (const p of mapped.problems)
      caseProblems.push({ file: tracePath ? join(dir, tracePath) : journal, field: p.field, message: p.message });
    problems.push(...caseProblems);
    cases.push(mapped);
  }
  for (const b of broken.values())
    if (!latest.has(`${b.id}#${b.trial}`)) cases.push(brokenCase(b.id, b.trial, b.text, b.problem));
  return { dir, summary, metas: [...latest.values()].map((x) => x.meta), cases, problems };
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
