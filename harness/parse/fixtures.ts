/**
 * The parser fixtures under fixtures/parse/<family>/ (self-written model outputs with the calls, content and
 * reasoning a reader expects), for the tests, the bench and the batch-parse benchmark. Two layouts:
 *   - NAME.txt (the output) + NAME.json (the expectation);
 *   - cases.json: a list of expectations, each with `id` and `text`.
 * Validated with zod; an error names the file and the field.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DataError, dataErrorFromZod } from '../core/errors.ts';
import { FAMILIES, type Family, type ToolSchema } from './types.ts';

export const FIXTURE_ROOT = fileURLToPath(new URL('../../fixtures/parse/', import.meta.url));

/** What every family must have a fixture of (fixtures.test.ts checks it). */
export const KINDS = ['single', 'parallel', 'nested', 'content', 'reasoning', 'malformed'] as const;

const Call = z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) });
const Recover = z.enum(['strict', 'lenient', 'none']);

export const Expected = z.object({
  about: z.string(),
  recover: Recover,
  format: z.string().optional(),
  calls: z.array(Call),
  /** the lenient tier's calls when they differ from the strict tier's (schema coercion) */
  lenient_calls: z.array(Call).optional(),
  lenient_tier: z.enum(['strict', 'lenient']).optional(),
  tools: z.array(z.unknown()).optional(),
  notes: z.array(z.string()).optional(),
  truncated: z.boolean().optional(),
  attempted: z.boolean().optional(),
  /** the visible text outside calls and reasoning */
  content: z.string().optional(),
  reasoning: z.string().optional(),
  rejected: z.array(z.string()).optional(),
  kinds: z.array(z.enum(KINDS)).optional(),
  /** the class of disagreement with a framework parser this fixture pins down */
  fixes: z.string().optional(),
  /**
   * Under `format: 'auto'`: false = not checked; an object = different expectations there, with the reason
   * (e.g. a wire form two families share).
   */
  auto: z
    .union([
      z.literal(false),
      z.literal(true),
      z.object({
        recover: Recover.optional(),
        format: z.string().optional(),
        calls: z.array(Call).optional(),
        reason: z.string(),
      }),
    ])
    .optional(),
});
export type ExpectedFixture = z.infer<typeof Expected>;

const CaseFile = z.array(Expected.extend({ id: z.string().min(1), text: z.string() }));

export interface Fixture {
  id: string;
  /** the family folder, or null (generic) */
  family: Family | null;
  text: string;
  exp: ExpectedFixture;
  tools?: ToolSchema[];
}

function toolsOf(raw: unknown[] | undefined): ToolSchema[] | undefined {
  return raw?.map((t) => {
    const o = t as { function?: ToolSchema } & ToolSchema;
    return o.function ?? o;
  });
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new DataError(file, undefined, undefined, `not JSON (${(e as Error).message})`);
  }
}

export function loadFixtures(root = FIXTURE_ROOT): Fixture[] {
  const out: Fixture[] = [];
  if (!existsSync(root)) return out;
  for (const dir of readdirSync(root).sort()) {
    const family = (FAMILIES as readonly string[]).includes(dir) ? (dir as Family) : null;
    const files = readdirSync(join(root, dir)).sort();
    for (const f of files) {
      if (f.endsWith('.txt')) {
        const base = f.slice(0, -4);
        const text = readFileSync(join(root, dir, f), 'utf8');
        const file = join(root, dir, `${base}.json`);
        const parsed = Expected.safeParse(readJson(file));
        if (!parsed.success) throw dataErrorFromZod(file, undefined, parsed.error);
        out.push({ id: `${dir}/${base}`, family, text, exp: parsed.data, tools: toolsOf(parsed.data.tools) });
      } else if (f === 'cases.json') {
        const file = join(root, dir, f);
        const parsed = CaseFile.safeParse(readJson(file));
        if (!parsed.success) {
          const row =
            typeof parsed.error.issues[0]?.path[0] === 'number'
              ? (parsed.error.issues[0].path[0] as number)
              : undefined;
          throw dataErrorFromZod(file, row, parsed.error);
        }
        for (const c of parsed.data) {
          const { id, text, ...exp } = c;
          out.push({ id: `${dir}/${id}`, family, text, exp, tools: toolsOf(exp.tools) });
        }
      }
    }
  }
  const ids = new Set<string>();
  for (const fx of out) {
    if (ids.has(fx.id)) throw new DataError(root, undefined, 'id', `duplicate fixture id ${fx.id}`);
    ids.add(fx.id);
  }
  return out;
}
