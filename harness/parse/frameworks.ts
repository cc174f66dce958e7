/**
 * The serving frameworks' own tool-parser test cases (vLLM tests/tool_parsers, llama.cpp tests/test-chat.cpp),
 * kept as data in fixtures/parse/<family>/frameworks.json: the model output, the tools the test passes (XML-style
 * values are typed by them), the calls the test's assertion expects and the content where it asserts one.
 * `frameworkAgreement` checks one case against toolgauge's strict tier with the family named and the case's tools.
 * A case toolgauge deliberately reads differently carries `known_difference` with the reason.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DataError, dataErrorFromZod } from '../core/errors.ts';
import { FIXTURE_ROOT } from './fixtures.ts';
import { parseToolCalls } from './index.ts';
import { FAMILIES, type Family, type ToolSchema } from './types.ts';

const ExpectedCall = z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() });

export const FrameworkCase = z.object({
  id: z.string().min(1),
  /** "vLLM <file>::<test>[<param id>]" or "llama.cpp <file>: <what>" */
  source: z.string().regex(/^(vLLM|llama\.cpp) tests\//),
  text: z.string(),
  tools: z.array(z.unknown()).optional(),
  calls: z.array(ExpectedCall),
  /** 'names': the test asserts only the names (and count) of the calls */
  compare: z.enum(['full', 'names']).default('full'),
  /** the content the test asserts (null: the framework returns none); compared without surrounding whitespace */
  content: z.string().nullable().optional(),
  /** the reasoning the test asserts (llama.cpp with a reasoning format), compared without surrounding whitespace */
  reasoning: z.string().optional(),
  /** why toolgauge deliberately reads this case differently from the framework */
  known_difference: z.string().min(20).optional(),
  /** with a known difference: the lenient tier reads the case as the framework does */
  lenient_agrees: z.boolean().optional(),
  /** with a known difference: format 'auto' (strict) reads the case as the framework does, as another family's form */
  auto_agrees: z.boolean().optional(),
  /** why format 'auto' deliberately reads this case differently from the named family (the auto check is skipped) */
  auto_differs: z.string().min(20).optional(),
});
export type FrameworkCase = z.infer<typeof FrameworkCase>;

export interface FrameworkFixture {
  id: string;
  family: Family;
  case: FrameworkCase;
  tools?: ToolSchema[];
}

export function loadFrameworkCases(root = FIXTURE_ROOT): FrameworkFixture[] {
  const out: FrameworkFixture[] = [];
  if (!existsSync(root)) return out;
  for (const dir of readdirSync(root).sort()) {
    const file = join(root, dir, 'frameworks.json');
    if (!existsSync(file)) continue;
    if (!(FAMILIES as readonly string[]).includes(dir))
      throw new DataError(file, undefined, undefined, `${dir} is not a family`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new DataError(file, undefined, undefined, `not JSON (${(e as Error).message})`);
    }
    const parsed = z.array(FrameworkCase).safeParse(raw);
    if (!parsed.success) {
      const row = parsed.error.issues[0]?.path[0];
      throw dataErrorFromZod(file, typeof row === 'number' ? row : undefined, parsed.error);
    }
    for (const c of parsed.data) {
      const tools = c.tools?.map((t) => ((t as { function?: ToolSchema }).function ?? t) as ToolSchema);
      out.push({ id: `${dir}/${c.id}`, family: dir as Family, case: c, tools });
    }
  }
  const ids = new Set<string>();
  for (const f of out) {
    if (ids.has(f.id)) throw new DataError(root, undefined, 'id', `duplicate framework case id ${f.id}`);
    ids.add(f.id);
  }
  return out;
}

export interface Agreement {
  agree: boolean;
  /** what differs, for a report */
  why: string[];
}

/** Does toolgauge's strict tier (or the lenient one), family named (or auto) with the case's tools, give what the framework's test asserts? */
export function frameworkAgreement(
  fx: FrameworkFixture,
  tier: 'strict' | 'lenient' = 'strict',
  format: Family | 'auto' = fx.family,
): Agreement {
  const r = parseToolCalls(fx.case.text, { tier, format, tools: fx.tools });
  const why: string[] = [];
  const want = fx.case.calls;
  const got = r.calls;
  const norm = (cs: Array<{ name: string; arguments?: unknown }>) =>
    JSON.stringify(
      fx.case.compare === 'names' ? cs.map((c) => c.name) : cs.map((c) => ({ name: c.name, arguments: c.arguments })),
    );
  if (norm(got) !== norm(want)) why.push(`calls: want ${norm(want)}, got ${norm(got)}`);
  if (fx.case.content !== undefined) {
    const wantContent = (fx.case.content ?? '').trim();
    if (r.content.trim() !== wantContent)
      why.push(`content: want ${JSON.stringify(wantContent)}, got ${JSON.stringify(r.content)}`);
  }
  if (fx.case.reasoning !== undefined && r.reasoning.trim() !== fx.case.reasoning.trim()) {
    why.push(`reasoning: want ${JSON.stringify(fx.case.reasoning)}, got ${JSON.stringify(r.reasoning)}`);
  }
  return { agree: why.length === 0, why };
}
