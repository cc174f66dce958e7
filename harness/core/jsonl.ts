import { randomBytes } from 'node:crypto';
import { constants, existsSync, readFileSync, mkdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { closeQuietly, mkdirNoFollow, openNoFollow } from './nofollow.ts';
import { redact } from './redact.ts';

/**
 * Append one JSON line and return only when it is written (one write(2) with O_APPEND: lines never interleave).
 * The file is opened without following a link; with `root`, the folders from `root` down are checked too
 * (core/nofollow.ts). Returns the line as written (redacted, without its newline).
 */
export function appendJsonl(path: string, record: unknown, root?: string): string {
  makeParent(path, root);
  const text = redact(JSON.stringify(record));
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

/**
 * Read a JSONL file. A killed run can leave a torn last line; it is reported through `onBadLine` and skipped
 * rather than failing the whole read.
 */
export function readJsonl<T = unknown>(path: string, onBadLine?: (lineNo: number, text: string) => void): T[] {
  if (!existsSync(path)) return [];
  const out: T[] = [];
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      onBadLine?.(i + 1, line);
    }
  });
  return out;
}

/**
 * Write a file atomically (temp + rename) so readers never see half a summary; secrets are redacted. The temporary
 * file is created exclusively without following links, and the rename replaces a link in `path`'s place rather than
 * writing through it; with `root`, the folders from `root` down are checked too.
 */
export function writeFileAtomic(path: string, data: string, root?: string): void {
  makeParent(path, root);
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openNoFollow(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    writeSync(fd, redact(data));
  } catch (err) {
    closeQuietly(fd);
    rmSync(tmp, { force: true });
    throw err;
  } finally {
    closeQuietly(fd);
  }
  renameSync(tmp, path);
}
