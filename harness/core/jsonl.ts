import { appendFileSync, existsSync, readFileSync, writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { redact } from './redact.ts';

/** Append one JSON line and return only when it is written (one write(2) with O_APPEND: lines never interleave). */
export function appendJsonl(path: string, record: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, redact(JSON.stringify(record)) + '\n');
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

/** Write a file atomically (temp + rename) so readers never see half a summary; secrets are redacted. */
export function writeFileAtomic(path: string, data: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, redact(data));
  renameSync(tmp, path);
}
