import { createHash } from 'node:crypto';
import { closeSync, constants, mkdirSync, readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { dirname } from 'node:path';
import { closeQuietly, mkdirNoFollow, openForReading, openNoFollow, writeAtomic } from './nofollow.ts';
import { stringifyJson } from './json-float.ts';
import { redact } from './redact.ts';

/**
 * Append one JSON line and return only when it is written (one write(2) with O_APPEND: lines never interleave).
 * The file is opened without following a link; with `root`, the folders from `root` down are checked too
 * (core/nofollow.ts). Returns the line as written (redacted, without its newline).
 */
export function appendJsonl(path: string, record: unknown, root?: string): string {
  makeParent(path, root);
  const text = redact(stringifyJson(record));
  const fd = openNoFollow(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
  try {
    writeSync(fd, text + '\n');
  } finally {
    closeQuietly(fd);
  }
  return text;
}

function makeParent(path: string, root: string | undefined): void {
  if (root) mkdirNoFollow(root, dirname(path));
  else mkdirSync(dirname(path), { recursive: true });
}

/** The longest line a reader keeps (characters); a longer line is reported as too long, never held whole. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export interface Line {
  /** The line without its `\n` (and without a trailing `\r`); cut at the limit when `tooLong`. */
  text: string;
  /** 1-based line number in the file. */
  lineNo: number;
  tooLong: boolean;
}

export interface StreamLinesOptions {
  maxLineChars?: number;
  /** Hash the whole file (sha256 of its bytes), also past the point where `onLine` stopped reading. */
  hash?: boolean;
  /** Bytes per read (tests use tiny chunks to cross every boundary). */
  chunkBytes?: number;
  /** The folder the file must stay in (an output directory): no link on the way (core/nofollow.ts openForReading). */
  root?: string;
}

const CHUNK = 1 << 20;

/**
 * Read a file line by line in bounded memory (one chunk plus one line): `onLine` returns `false` to stop. The
 * one reader of line files — datasets, journals, record files — so none of them holds a whole file in memory.
 * Returns the file's sha256 when asked (the bytes read after a stop are hashed, not split into lines).
 */
export function streamLines(
  path: string,
  onLine: (line: Line) => boolean | void,
  opts: StreamLinesOptions = {},
): { sha256?: string } {
  const max = opts.maxLineChars ?? MAX_LINE_CHARS;
  const hash = opts.hash ? createHash('sha256') : undefined;
  const decoder = new StringDecoder('utf8');
  const chunk = opts.chunkBytes ?? CHUNK;
  const buf = Buffer.allocUnsafe(chunk);
  const opened = openForReading(path, { root: opts.root });
  if (!opened) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
  const { fd } = opened;
  let pending = '';
  let tooLong = false;
  let lineNo = 0;
  let reading = true;
  const emit = (text: string) => {
    lineNo += 1;
    if (reading && onLine({ text: text.endsWith('\r') ? text.slice(0, -1) : text, lineNo, tooLong }) === false)
      reading = false;
    tooLong = false;
  };
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, chunk, null);
      if (n === 0) break;
      hash?.update(buf.subarray(0, n));
      if (!reading) {
        if (!hash) break;
        continue;
      }
      let text = decoder.write(buf.subarray(0, n));
      let nl: number;
      while (reading && (nl = text.indexOf('\n')) >= 0) {
        emit(tooLong ? pending : pending + text.slice(0, nl));
        pending = '';
        text = text.slice(nl + 1);
      }
      if (!reading) continue;
      if (!tooLong) {
        pending += text;
        if (pending.length > max) {
          pending = pending.slice(0, max);
          tooLong = true;
        }
      }
    }
    if (reading) {
      if (!tooLong) pending += decoder.end();
      if (pending || tooLong) emit(pending);
    }
  } finally {
    closeSync(fd);
  }
  return hash ? { sha256: hash.digest('hex') } : {};
}

/**
 * Each value of a JSONL file, in order, as it is read (nothing held). A killed run can leave a torn last line; it is
 * reported through `onBadLine` and skipped rather than failing the whole read; blank lines are skipped. A missing
 * file has no values.
 */
export function eachJsonl<T = unknown>(
  path: string,
  onValue: (value: T) => void,
  onBadLine?: (lineNo: number, text: string) => void,
  root?: string,
): void {
  try {
    streamLines(
      path,
      ({ text, lineNo, tooLong }) => {
        if (!text.trim()) return;
        let value: T;
        try {
          if (tooLong) throw new Error('line too long');
          value = JSON.parse(text) as T;
        } catch {
          onBadLine?.(lineNo, text);
          return;
        }
        onValue(value);
      },
      root ? { root } : {},
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
}

/** Read a JSONL file whole: eachJsonl's values in an array. */
export function readJsonl<T = unknown>(
  path: string,
  onBadLine?: (lineNo: number, text: string) => void,
  root?: string,
): T[] {
  const out: T[] = [];
  eachJsonl<T>(path, (v) => out.push(v), onBadLine, root);
  return out;
}

/**
 * Write a file atomically (temp + rename) so readers never see half a summary; secrets are redacted. The temporary
 * file is created exclusively without following links, and only a regular file at `path` is replaced (a link, FIFO,
 * device or folder there is refused: core/nofollow.ts writeAtomic); with `root`, the folders from `root` down are
 * checked too.
 */
export function writeFileAtomic(path: string, data: string, root?: string): void {
  makeParent(path, root);
  writeAtomic(path, redact(data));
}

/**
 * writeFileAtomic for a file of many lines (a journal of 10^5 instances), written as they are produced: each line is
 * redacted on its own (a secret never spans lines) and the whole is never held as one string.
 */
export function writeLinesAtomic(path: string, lines: Iterable<string>, root?: string): void {
  makeParent(path, root);
  writeAtomic(
    path,
    (function* () {
      for (const line of lines) yield redact(line);
    })(),
  );
}
