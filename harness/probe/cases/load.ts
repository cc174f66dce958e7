import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ChatMessage, OpenAITool, ToolCall } from '../../core/chat.ts';
import { readDataText, readJsonOrYaml } from '../../core/data-file.ts';
import { DataError, dataErrorFromZod } from '../../core/errors.ts';
import { sha256 } from '../../core/hash.ts';
import { deriveSeed } from '../../core/rng.ts';
import { strftime } from '../../templates/strftime.ts';
import {
  CaseRowSchema,
  PaletteListSchema,
  PaletteMapSchema,
  type ArgRule,
  type CallIn,
  type CaseRow,
  type ExpectedCall,
  type ProbeCase,
} from './types.ts';

/** A tool palette: tool name → OpenAI tool. */
export type Palette = Map<string, OpenAITool>;

export interface LoadedCases {
  cases: ProbeCase[];
  /** The validated rows as written (the linter reads these). */
  rows: CaseRow[];
  file: string;
  sha256: string;
  toolsFile: string | null;
  toolsSha256: string | null;
  palette: Palette;
}

export interface LoadOptions {
  /** The tool palette file; default: tools.yaml / tools.yml / tools.json beside the cases file, if any. */
  toolsFile?: string;
  /**
   * Reference date (YYYY-MM-DD) for cases that compare datetimes: such a case without a system turn gets one
   * stating the date, so "tomorrow at 6pm" has one right answer. A case's own `date` wins.
   */
  dateContext?: string;
}

const PALETTE_NAMES = ['tools.yaml', 'tools.yml', 'tools.json'];

/** The palette file that goes with a cases file, when none is named. */
export function defaultToolsFile(casesFile: string): string | null {
  for (const n of PALETTE_NAMES) {
    const p = join(dirname(casesFile), n);
    if (existsSync(p)) return p;
  }
  return null;
}

/** Read a palette (Toolhound's `name: {description, parameters}` YAML, or a JSON/YAML list of OpenAI tools). */
export function loadPalette(file: string): { palette: Palette; sha256: string } {
  const text = readDataText(file, 'the tool palette');
  const raw = readJsonOrYaml(text, file);
  const r = Array.isArray(raw) ? PaletteListSchema.safeParse(raw) : PaletteMapSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const row = issue?.path[0];
    throw dataErrorFromZod(file, typeof row === 'number' || typeof row === 'string' ? row : undefined, r.error);
  }
  const palette: Palette = new Map();
  const add = (
    name: string,
    description: string | undefined,
    parameters: Record<string, unknown> | undefined,
    row: string | number,
  ) => {
    if (palette.has(name)) throw new DataError(file, row, 'name', `tool '${name}' is defined twice`);
    palette.set(name, {
      type: 'function',
      function: {
        name,
        ...(description !== undefined ? { description } : {}),
        parameters: parameters ?? { type: 'object', properties: {} },
      },
    });
  };
  if (Array.isArray(r.data)) {
    r.data.forEach((t, i) => {
      const f = 'function' in t ? t.function : t;
      add(f.name, f.description, f.parameters, i);
    });
  } else {
    for (const [name, t] of Object.entries(r.data)) add(name, t.description, t.parameters, name);
  }
  return { palette, sha256: sha256(text) };
}

const toCall = (c: CallIn): ExpectedCall => ({
  ...('tool' in c ? { name: c.tool, arguments: c.args } : { name: c.name, arguments: c.arguments }),
  ...(c.arg_rules ? { rules: c.arg_rules } : {}),
});

/** A deterministic 9-character alphanumeric call id (the strictest common rule, Mistral's). */
export function callId(caseId: string, n: number): string {
  const a = deriveSeed(0, 'probe-call-id', caseId, n).toString(36);
  const b = deriveSeed(1, 'probe-call-id', caseId, n).toString(36);
  return `${a}${b}`
    .replace(/[^a-z0-9]/g, '')
    .padEnd(9, '0')
    .slice(0, 9);
}

function hasDatetimeRule(rules: Record<string, ArgRule>): boolean {
  return Object.values(rules).some((r) => r.datetime !== undefined || r.normalize !== undefined);
}

/** "Today is Friday, 20 March 2026." */
export function dateSentence(date: string): string {
  return strftime(new Date(`${date}T12:00:00Z`), 'Today is %A, %-d %B %Y.');
}

/** One validated row → a runnable case. Throws DataError naming the file, line and field. */
export function caseFromRow(
  row: CaseRow,
  palette: Palette,
  file: string,
  line: number,
  opts: LoadOptions = {},
): ProbeCase {
  const where = `${line} (${row.id})`;
  const tools: OpenAITool[] = row.tools.map((t, i) => {
    if (typeof t !== 'string') {
      const f = 'function' in t ? t.function : t;
      return {
        type: 'function',
        function: {
          name: f.name,
          ...(f.description !== undefined ? { description: f.description } : {}),
          parameters: f.parameters ?? { type: 'object', properties: {} },
        },
      };
    }
    const found = palette.get(t);
    if (!found)
      throw new DataError(
        file,
        where,
        `tools[${i}]`,
        `unknown tool '${t}' (not in the tool palette${palette.size ? '' : ': none was loaded, pass --tools'})`,
      );
    return found;
  });
  const names = new Set<string>();
  tools.forEach((t, i) => {
    if (names.has(t.function.name))
      throw new DataError(file, where, `tools[${i}]`, `tool '${t.function.name}' is listed twice`);
    names.add(t.function.name);
  });

  const expected =
    row.expected === null ? null : (Array.isArray(row.expected) ? row.expected : [row.expected]).map(toCall);
  expected?.forEach((c, i) => {
    if (!names.has(c.name))
      throw new DataError(
        file,
        where,
        Array.isArray(row.expected) ? `expected[${i}].tool` : 'expected.tool',
        `'${c.name}' is not among the case's tools`,
      );
  });

  const messages: ChatMessage[] = [];
  let date = row.date;
  const context = row.date ?? opts.dateContext;
  if (context && hasDatetimeRule(row.arg_rules) && !row.turns.some((t) => t.role === 'system')) {
    messages.push({ role: 'system', content: dateSentence(context) });
    date = context;
  }
  let n = 0;
  const pending: string[] = [];
  row.turns.forEach((t, i) => {
    if (t.role === 'assistant') {
      const calls = t.tool_calls ?? (t.tool_call ? [t.tool_call] : []);
      const toolCalls: ToolCall[] = calls.map((c, j) => {
        const call = toCall(c);
        if (!names.has(call.name))
          throw new DataError(
            file,
            where,
            `turns[${i}].${t.tool_calls ? `tool_calls[${j}]` : 'tool_call'}.tool`,
            `'${call.name}' is not among the case's tools`,
          );
        const id = callId(row.id, n++);
        pending.push(id);
        return { id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } };
      });
      if (toolCalls.length === 0 && !t.content)
        throw new DataError(file, where, `turns[${i}]`, 'an assistant turn needs content or a tool call');
      messages.push({
        role: 'assistant',
        content: t.content ?? null,
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
      });
    } else if (t.role === 'tool') {
      const id = pending.shift();
      if (!id) throw new DataError(file, where, `turns[${i}]`, 'a tool turn must follow an assistant tool call');
      messages.push({ role: 'tool', content: t.content, tool_call_id: id, ...(t.name ? { name: t.name } : {}) });
    } else {
      messages.push({ role: t.role, content: t.content });
    }
  });
  const last = row.turns.at(-1)!;
  if (last.role !== 'user' && last.role !== 'tool')
    throw new DataError(
      file,
      where,
      `turns[${row.turns.length - 1}]`,
      'the last turn must be a user (or tool) message: the model answers it',
    );

  return {
    id: row.id,
    cat: row.cat,
    family: row.family ?? row.id.replace(/_(dev|test)_\d+$/, ''),
    split: row.split,
    tools,
    messages,
    expected,
    rules: row.arg_rules,
    ...(row.slots ? { slots: row.slots } : {}),
    ...(row.phrasing ? { phrasing: row.phrasing } : {}),
    ...(date ? { date } : {}),
    ...(row.note ? { note: row.note } : {}),
    source: { file, line },
  };
}

/**
 * Load and validate a cases file (JSONL; blank lines and `//` comment lines skipped). Every problem is a
 * DataError naming the file, the line (and case id) and the field.
 */
export function loadCases(file: string, opts: LoadOptions = {}): LoadedCases {
  const text = readDataText(file, 'the cases file');
  const toolsFile = opts.toolsFile ?? defaultToolsFile(file);
  const { palette, sha256: toolsSha256 } = toolsFile
    ? loadPalette(toolsFile)
    : { palette: new Map() as Palette, sha256: null };
  const cases: ProbeCase[] = [];
  const rows: CaseRow[] = [];
  const seen = new Map<string, number>();
  text.split('\n').forEach((lineText, i) => {
    const line = i + 1;
    const trimmed = lineText.trim();
    if (!trimmed || trimmed.startsWith('//')) return;
    let raw: unknown;
    try {
      raw = JSON.parse(trimmed);
    } catch (e) {
      throw new DataError(file, line, undefined, `not a JSON object: ${(e as Error).message}`);
    }
    const id =
      raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string'
        ? (raw as { id: string }).id
        : undefined;
    const r = CaseRowSchema.safeParse(raw);
    if (!r.success) throw dataErrorFromZod(file, id ? `${line} (${id})` : line, r.error);
    const prev = seen.get(r.data.id);
    if (prev !== undefined)
      throw new DataError(file, `${line} (${r.data.id})`, 'id', `duplicate id (first on line ${prev})`);
    seen.set(r.data.id, line);
    rows.push(r.data);
    cases.push(caseFromRow(r.data, palette, file, line, opts));
  });
  if (cases.length === 0) throw new DataError(file, undefined, undefined, 'no cases in the file');
  return { cases, rows, file, sha256: sha256(text), toolsFile: toolsFile ?? null, toolsSha256, palette };
}
