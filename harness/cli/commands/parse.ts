import { accessSync, constants, createReadStream, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { dataErrorFromZod, UsageError } from '../../core/errors.ts';
import { FAMILIES, parseToolCalls, type Family, type ParseResult, type ToolSchema } from '../../parse/index.ts';
import { parseFlags, type FlagSpecs } from '../../kit/flags/flags.ts';
import { LineSplitter } from './line-splitter.ts';

export const USAGE = `toolgauge parse [--tier strict|lenient] [--format auto|NAME] [--tools FILE]
toolgauge parse --jsonl FILE|- [--tier strict|lenient] [--format auto|NAME] [--tools FILE]

Reads raw model output and prints the tool calls in it, with the content and the reasoning around them.

  one output     the whole of stdin is one model output; prints one JSON line
                 {"tier", "format", "calls": [{"name", "arguments"}], "content", "reasoning"}
  --jsonl FILE   batch mode (FILE or - for stdin): one JSON object per line, {"id", "output", "format"?}
                 ("format" overrides --format for that line); prints one line per input line, in order:
                 {"id", "format", "tier", "calls": [{"name", "arguments"}], "content", "reasoning"}
                 A line that is not valid JSON or lacks "id"/"output" prints {"id", "error"} instead; the
                 command then exits 1 after the last line. Blank lines are skipped. Thousands of lines per second.

  --tier     strict: only what the model's own serving framework parser accepts; lenient (default): also
             rescues recoverable calls (code fences, loose JSON, alias keys, missing closing tags, …)
  --format   auto (default) tries every family; NAME: ${FAMILIES.join(', ')}
  --tools    JSON array of OpenAI tools or function schemas: types XML-style values by schema and, in the
             lenient tier, coerces argument types

Call markup inside the reasoning (<think>, [THINK], harmony analysis, …) is never a call. Exit 0 also when no
call is found.`;

// `short` and `multiple` are spelled out because parseFlags forwards them even when undefined, and node's
// parseArgs (Node 20) rejects an undefined `short` or `multiple`.
const FLAGS: FlagSpecs = {
  tier: {
    type: 'string',
    short: 't',
    multiple: false,
    values: ['strict', 'lenient'],
    description: 'parser tier (default lenient)',
  },
  format: {
    type: 'string',
    short: 'f',
    multiple: false,
    values: ['auto', ...FAMILIES],
    description: 'tool-call family (default auto)',
  },
  tools: { type: 'string', short: 'T', multiple: false, description: 'JSON array of OpenAI tools or function schemas' },
  jsonl: {
    type: 'string',
    short: 'j',
    multiple: false,
    description: 'batch mode: FILE (or -) with one {"id", "output", "format"?} per line',
  },
};

const FunctionSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});
const ToolEntry = z.union([
  z.object({ type: z.literal('function').optional(), function: FunctionSchema }),
  FunctionSchema,
]);
const ToolsFile = z.array(ToolEntry);

export function loadTools(path: string): ToolSchema[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UsageError(`toolgauge parse: --tools cannot read '${path}' (${why})`);
  }
  const r = ToolsFile.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const row = typeof issue?.path[0] === 'number' ? issue.path[0] : undefined;
    throw new UsageError(`toolgauge parse: --tools ${dataErrorFromZod(path, row, r.error).message}`);
  }
  return r.data.map((t) => ('function' in t ? t.function : t));
}

export interface ParseIo {
  stdin: AsyncIterable<string | Uint8Array>;
  stdout: { write(chunk: string): unknown };
}

async function readAll(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c, 'utf8') : Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
}

/** One input line of batch mode. */
export const BatchLine = z.object({
  id: z.union([z.string(), z.number()]),
  output: z.string(),
  format: z.enum(['auto', ...FAMILIES]).optional(),
});
export type BatchLine = z.infer<typeof BatchLine>;

/** The output line for one parse, fields in documented order. */
export function batchRecord(id: string | number, r: ParseResult): Record<string, unknown> {
  return { id, format: r.format, tier: r.tier, calls: r.calls, content: r.content, reasoning: r.reasoning };
}

export interface BatchOptions {
  tier: 'strict' | 'lenient';
  format: 'auto' | Family;
  tools?: ToolSchema[];
  /** shown in error lines (the file name, or "stdin") */
  source: string;
}

const FORMATS = new Set<string>(['auto', ...FAMILIES]);

/**
 * `raw` as a BatchLine when it is plainly one — an object whose `id` is a string or a finite number, whose `output`
 * is a string and whose `format`, if present, is a known name — else null (BatchLine decides). Only accepts what
 * BatchLine accepts, with the same result: it spares the common line zod's work.
 */
export function plainBatchLine(raw: unknown): BatchLine | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const { id, output, format } = raw as Record<string, unknown>;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) return null;
  if (typeof output !== 'string') return null;
  if (format !== undefined && !(typeof format === 'string' && FORMATS.has(format))) return null;
  return format === undefined ? { id, output } : { id, output, format: format as BatchLine['format'] };
}

/** One input line → one output line (a record or an error), never throws. */
export function batchLine(line: string, lineNo: number, o: BatchOptions): { out: string; error: boolean } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    return {
      out: JSON.stringify({ id: null, error: `${o.source}: line ${lineNo}: not JSON (${(e as Error).message})` }),
      error: true,
    };
  }
  // The common line, checked by hand; anything else (an error, or a shape this check does not know) goes to zod.
  const fast = plainBatchLine(raw);
  const r = fast !== null ? { success: true as const, data: fast } : BatchLine.safeParse(raw);
  if (!r.success) {
    const id =
      raw && typeof raw === 'object' && 'id' in raw && (typeof raw.id === 'string' || typeof raw.id === 'number')
        ? raw.id
        : null;
    return {
      out: JSON.stringify({
        id,
        error: dataErrorFromZod(o.source, `line ${lineNo}`, r.error).message.replace(': row line', ': line'),
      }),
      error: true,
    };
  }
  const res = parseToolCalls(r.data.output, { tier: o.tier, format: r.data.format ?? o.format, tools: o.tools });
  return { out: JSON.stringify(batchRecord(r.data.id, res)), error: false };
}

/** Batch mode over a stream of lines; output is written in blocks (one write per ~256 lines). */
export async function runBatch(
  input: Readable | AsyncIterable<string | Uint8Array>,
  o: BatchOptions,
  stdout: ParseIo['stdout'],
): Promise<number> {
  const split = new LineSplitter();
  let buf: string[] = [];
  let lineNo = 0;
  let errors = 0;
  const each = (lines: string[]) => {
    for (const line of lines) {
      lineNo++;
      if (line.trim() === '') continue;
      const { out, error } = batchLine(line, lineNo, o);
      if (error) errors++;
      buf.push(out);
      if (buf.length >= 256) {
        stdout.write(`${buf.join('\n')}\n`);
        buf = [];
      }
    }
  };
  for await (const chunk of input) each(split.push(chunk as string | Uint8Array));
  each(split.end());
  if (buf.length > 0) stdout.write(`${buf.join('\n')}\n`);
  return errors > 0 ? 1 : 0;
}

export async function run(
  argv: string[],
  io: ParseIo = { stdin: process.stdin, stdout: process.stdout },
): Promise<number> {
  const { values } = parseFlags('parse', argv, FLAGS);
  const tier = (values.tier as 'strict' | 'lenient' | undefined) ?? 'lenient';
  const format = (values.format as 'auto' | Family | undefined) ?? 'auto';
  const tools = typeof values.tools === 'string' ? loadTools(values.tools) : undefined;
  if (typeof values.jsonl === 'string') {
    const file = values.jsonl;
    if (file === '') throw new UsageError('toolgauge parse: --jsonl needs a FILE (or - for stdin)');
    let input: Readable | AsyncIterable<string | Uint8Array>;
    if (file === '-') input = io.stdin;
    else {
      try {
        accessSync(file, constants.R_OK); // fail early and clearly on a missing file
      } catch (e) {
        throw new UsageError(
          `toolgauge parse: --jsonl cannot read '${file}' (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        );
      }
      // large reads: a batch file is read through, and each read is a turn of the event loop
      input = createReadStream(file, { highWaterMark: 1 << 20 });
    }
    return runBatch(input, { tier, format, tools, source: file === '-' ? 'stdin' : file }, io.stdout);
  }
  const text = await readAll(io.stdin);
  const r = parseToolCalls(text, { tier, format, tools });
  io.stdout.write(
    `${JSON.stringify({ tier: r.tier, format: r.format, calls: r.calls, content: r.content, reasoning: r.reasoning })}\n`,
  );
  return 0;
}
