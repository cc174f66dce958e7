import { z } from 'zod';

/** One entry of a `tools/list` reply, loosely: each field is checked here, one tool at a time. */
export const ListedToolSchema = z.looseObject({
  name: z.unknown(),
  description: z.unknown().optional(),
  inputSchema: z.unknown().optional(),
});
export const ListToolsPageSchema = z.looseObject({
  tools: z.array(ListedToolSchema),
  nextCursor: z.string().optional(),
});
export type ListedTool = z.infer<typeof ListedToolSchema>;

/** What the model is offered for one server tool; `remote` is the name the server knows it by. */
export interface ToolSpec {
  name: string;
  remote: string;
  description?: string;
  parameters: Record<string, unknown>;
}

/** The names a chat endpoint accepts for a function (OpenAI's rule), after the prefix. */
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** A description longer than this is cut: it is prompt text the server chose. */
export const MAX_DESCRIPTION_CHARS = 4000;
const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} } as const;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A server's tool list as the eval's tools. A tool whose name a chat endpoint would refuse is left out; an input
 * schema that is not a JSON Schema object (`type: 'object'`) is replaced by an empty object schema; a description
 * over the limit is cut. Each such change is a note (kept in every case's trace). Pure.
 */
export function toolSpecs(
  server: string,
  listed: readonly ListedTool[],
  prefix = '',
): { specs: ToolSpec[]; notes: string[] } {
  const specs: ToolSpec[] = [];
  const notes: string[] = [];
  listed.forEach((t, i) => {
    if (typeof t.name !== 'string' || !FUNCTION_NAME.test(prefix + t.name)) {
      notes.push(
        `${server}: tool ${JSON.stringify(t.name)} (tools[${i}]) left out: a tool name must be 1-64 letters, digits, '_' or '-'`,
      );
      return;
    }
    let parameters: Record<string, unknown> = { ...EMPTY_OBJECT_SCHEMA };
    if (isPlainObject(t.inputSchema) && t.inputSchema.type === 'object') parameters = t.inputSchema;
    else
      notes.push(
        `${server}: tool '${t.name}': inputSchema is not a JSON Schema object; replaced by an empty object schema`,
      );
    let description = typeof t.description === 'string' ? t.description : undefined;
    if (description && description.length > MAX_DESCRIPTION_CHARS) {
      notes.push(
        `${server}: tool '${t.name}': description cut to ${MAX_DESCRIPTION_CHARS} of ${description.length} chars`,
      );
      description = description.slice(0, MAX_DESCRIPTION_CHARS);
    }
    specs.push({ name: prefix + t.name, remote: t.name, ...(description ? { description } : {}), parameters });
  });
  return { specs, notes };
}
