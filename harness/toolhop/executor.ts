import type { OpenAITool, ToolExecution, ToolExecutor, ToolInvocation } from '../core/chat.ts';
import type { Sandbox, ToolOutcome } from '../sandbox/index.ts';
import type { ToolhopRow } from './row.ts';
import { toolEntries, toolsPayload, type ToolEntry } from './tools.ts';

/**
 * Runs one row's tools in the sandbox with the reference runner's messages: malformed arguments, unknown tools and
 * tool exceptions become tool messages saying so, and results are cut to the character budget with a marker.
 */
export class ToolhopExecutor implements ToolExecutor {
  private readonly entries: ToolEntry[];
  private readonly byName: Map<string, ToolEntry>;
  constructor(
    private readonly row: ToolhopRow,
    private readonly sandbox: Sandbox,
    private readonly charBudget: number,
    private readonly timeoutMs?: number,
  ) {
    this.entries = toolEntries(row);
    this.byName = new Map(this.entries.map((e) => [e.runtimeName, e]));
  }

  tools(): OpenAITool[] {
    return toolsPayload(this.entries);
  }

  async execute(call: ToolInvocation): Promise<ToolExecution> {
    const name = call.name;
    const parsed = parseArguments(call.argumentsJson);
    if ('error' in parsed) {
      return {
        content: `an error occurred when parsing arguments for ${name}: ${parsed.error}`,
        meta: { outcome: 'bad_arguments' },
      };
    }
    const entry = this.byName.get(name);
    if (!entry)
      return { content: `an error occurred when calling ${name}: unknown tool`, meta: { outcome: 'unknown_tool' } };
    const outcome = await this.sandbox.call(
      { rowId: this.row.id, index: entry.index, name: entry.name, sources: this.row.functions },
      // The raw text goes to Python's json.loads, so 1.0 stays a float and big ints stay exact.
      call.argumentsJson === '' ? '{}' : call.argumentsJson,
      this.timeoutMs ? { timeoutMs: this.timeoutMs } : undefined,
    );
    return {
      content: contentOf(name, outcome, this.charBudget),
      meta: { outcome: outcome.kind, durationMs: outcome.durationMs },
    };
  }
}

function contentOf(name: string, o: ToolOutcome, budget: number): string {
  // A tool exception and a killed tool (timeout, memory) read alike to the model, as in the reference runner.
  if (o.kind === 'ok') return truncateResult(o.content, budget, o.truncatedFrom);
  // Error text is stored too: the same budget and marker (a row controls its exception messages).
  const prefix = `an error occurred when calling ${name}: `;
  const full =
    o.kind === 'exception' && o.truncatedFrom !== undefined ? Array.from(prefix).length + o.truncatedFrom : undefined;
  return truncateResult(prefix + o.message, budget, full);
}

/**
 * Cut to `budget` characters (code points, as Python counts) with the reference marker. `fullLength` is the
 * Python length when the sandbox already cut a huge result, so the marker still reports the true size.
 */
export function truncateResult(content: string, budget: number, fullLength?: number): string {
  const chars = Array.from(content);
  const total = fullLength ?? chars.length;
  if (total <= budget) return content;
  return `${chars.slice(0, budget).join('')}\n... [truncated tool result: ${total} chars]`;
}

const PY_TYPE: Record<string, string> = { string: 'str', number: 'float', boolean: 'bool', object: 'dict' };

/** The reference's argument rules: empty means `{}`; anything but a JSON object is an error. */
export function parseArguments(raw: string): { args: Record<string, unknown> } | { error: string } {
  const text = raw === '' ? '{}' : raw;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const t =
      value === null
        ? 'NoneType'
        : Array.isArray(value)
          ? 'list'
          : Number.isInteger(value)
            ? 'int'
            : (PY_TYPE[typeof value] ?? typeof value);
    return { error: `expected a JSON object, got ${t}` };
  }
  return { args: value as Record<string, unknown> };
}
