import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { dataErrorFromZod, UsageError } from '../../core/errors.ts';
import { FAMILIES, parseToolCalls, type Family, type ToolSchema } from '../../parse/index.ts';
import { parseFlags, type FlagSpecs } from '../flags.ts';

// toolgauge parse [--tier strict|lenient] [--format auto|FAMILY] [--tools FILE]
// Raw model output on stdin → one JSON line {"tier", "format", "calls"} on stdout; exit 0 also when no call is found.

// `short` and `multiple` are spelled out because parseFlags forwards them even when undefined, and node's
// parseArgs (Node 20) rejects an undefined `short` or `multiple`.
const FLAGS: FlagSpecs = {
  tier: { type: 'string', short: 't', multiple: false, values: ['strict', 'lenient'], description: 'parser tier (default lenient)' },
  format: { type: 'string', short: 'f', multiple: false, values: ['auto', ...FAMILIES], description: 'tool-call family (default auto)' },
  tools: { type: 'string', short: 'T', multiple: false, description: 'JSON array of OpenAI tools or function schemas' },
};

const FunctionSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});
const ToolEntry = z.union([z.object({ type: z.literal('function').optional(), function: FunctionSchema }), FunctionSchema]);
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

export async function run(argv: string[], io: ParseIo = { stdin: process.stdin, stdout: process.stdout }): Promise<number> {
  const { values } = parseFlags('parse', argv, FLAGS);
  const tier = (values.tier as 'strict' | 'lenient' | undefined) ?? 'lenient';
  const format = (values.format as 'auto' | Family | undefined) ?? 'auto';
  const tools = typeof values.tools === 'string' ? loadTools(values.tools) : undefined;
  const text = await readAll(io.stdin);
  const r = parseToolCalls(text, { tier, format, tools });
  io.stdout.write(`${JSON.stringify({ tier: r.tier, format: r.format, calls: r.calls })}\n`);
  return 0;
}
