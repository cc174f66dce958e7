import type { ZodError } from 'zod';

/** A bad flag or value on the command line: one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Bad input data: names the file, the row (or case/task id) and the field. */
export class DataError extends Error {
  override name = 'DataError';
  constructor(
    readonly file: string,
    readonly row: string | number | undefined,
    readonly field: string | undefined,
    readonly problem: string,
  ) {
    super(`${file}${row !== undefined ? `: row ${row}` : ''}${field ? `: field ${field}` : ''}: ${problem}`);
  }
}

/** The first issue of a zod error as `path.to.field` and a message. */
export function firstZodIssue(err: ZodError): { field: string; message: string } {
  const issue = err.issues[0];
  if (!issue) return { field: '', message: err.message };
  const field = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
  return { field, message: issue.message };
}

/** Turn a zod failure for one row of a file into a DataError. */
export function dataErrorFromZod(
  file: string,
  row: string | number | undefined,
  err: ZodError,
  prefix = '',
): DataError {
  const { field, message } = firstZodIssue(err);
  return new DataError(file, row, prefix && field ? `${prefix}.${field}` : prefix || field, message);
}

/**
 * A Node system error from a path or socket the user named (a port in use, a file where a folder must be, no
 * permission): `listen EADDRINUSE: address already in use 127.0.0.1:8080`. Such an error is the user's to fix, so it
 * is told in one line; its stack, inside toolgauge's code, says nothing more to them. Null for any other error.
 */
export function systemErrorLine(err: unknown): string | null {
  const e = err as Partial<NodeJS.ErrnoException> | null;
  if (!(err instanceof Error) || typeof e?.code !== 'string' || typeof e.syscall !== 'string') return null;
  return /^E[A-Z]+$/.test(e.code) ? err.message : null;
}
