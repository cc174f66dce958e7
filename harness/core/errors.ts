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
