/**
 * Test helpers for the constrain folder (imported only by *.test.ts): the bundled probe cases read straight from
 * their files — a minimal reader of its own, so the grammar tests do not lean on the probe suite's loader.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readYaml } from '../core/yaml.ts';
import type { ParsedCall, ToolSchema } from '../parse/index.ts';

export interface GoldCase {
  id: string;
  tools: ToolSchema[];
  expected: ParsedCall[] | null;
}

export const CASES_FILE = fileURLToPath(new URL('../../cases/probe/cases.jsonl', import.meta.url));
export const TOOLS_FILE = fileURLToPath(new URL('../../cases/probe/tools.json', import.meta.url));
export const TOOLHOUND_CASES = fileURLToPath(new URL('../../../shared/data/toolhound/dev.jsonl', import.meta.url));
export const TOOLHOUND_TOOLS = fileURLToPath(new URL('../../../shared/data/toolhound/tools.yaml', import.meta.url));

type Row = {
  id: string;
  tools: Array<string | { function?: ToolSchema } | ToolSchema>;
  expected: null | Call | Call[];
};
type Call = { tool?: string; args?: Record<string, unknown>; name?: string; arguments?: Record<string, unknown> };

function palette(file: string): Map<string, ToolSchema> {
  const raw: unknown = file.endsWith('.json')
    ? JSON.parse(readFileSync(file, 'utf8'))
    : readYaml(readFileSync(file, 'utf8'));
  const out = new Map<string, ToolSchema>();
  if (Array.isArray(raw)) for (const t of raw as Array<{ function: ToolSchema }>) out.set(t.function.name, t.function);
  else
    for (const [name, v] of Object.entries(raw as Record<string, Omit<ToolSchema, 'name'>>))
      out.set(name, { name, ...v });
  return out;
}

export function readGoldCases(casesFile = CASES_FILE, toolsFile = TOOLS_FILE): GoldCase[] {
  const pal = palette(toolsFile);
  return readFileSync(casesFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const r = JSON.parse(l) as Row;
      const tools = r.tools.map((t) => {
        if (typeof t === 'string') {
          const s = pal.get(t);
          if (!s) throw new Error(`${r.id}: tool ${t} not in the palette`);
          return s;
        }
        return 'function' in t && t.function ? t.function : (t as ToolSchema);
      });
      const calls =
        r.expected === null
          ? null
          : (Array.isArray(r.expected) ? r.expected : [r.expected]).map((c) => ({
              name: (c.tool ?? c.name)!,
              arguments: c.args ?? c.arguments ?? {},
            }));
      return { id: r.id, tools, expected: calls };
    });
}
