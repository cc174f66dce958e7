import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { OpenAITool } from '../../core/chat.ts';
import { stableStringify } from '../../core/hash.ts';
import type { ParsedCall } from '../../parse/index.ts';
import { interpretable, validates, walkErrors } from './schema-interpret.ts';

// Schema validity of a call: the tool is in the case's catalog and its arguments validate against that tool's
// JSON Schema (ajv). Compiled validators are cached by schema text; unknown keywords are tolerated (tool
// schemas in the wild carry `description`s and vendor keys in odd places). A schema of the common keywords is
// walked instead of compiled (schema-interpret.ts: the same verdicts and errors, without a compile per schema);
// ajv compiles the rest.

/** The keywords ajv evaluates (its RULES.all with the options below; a test holds the two equal): it ignores others. */
export const AJV_KEYWORDS: ReadonlySet<string> = new Set(
  [
    '$comment id $ref type nullable const enum format',
    'maximum minimum exclusiveMaximum exclusiveMinimum multipleOf maxLength minLength pattern',
    'maxProperties minProperties required propertyNames additionalProperties dependencies properties patternProperties',
    'maxItems minItems uniqueItems additionalItems items contains',
    'not anyOf oneOf allOf if then else',
  ].flatMap((line) => line.split(' ')),
);
export const AJV_OPTIONS = { strict: false, allErrors: true, validateSchema: false } as const;

// Loaded with the first schema the walk leaves to it: a run whose catalogs the walk covers never loads it.
let ajv: Ajv | undefined;
function compiler(): Ajv {
  if (!ajv) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    ajv = new Ajv(AJV_OPTIONS);
  }
  return ajv;
}
const cache = new Map<string, ValidateFunction | string>();

function validator(schema: Record<string, unknown> | undefined): ValidateFunction | string {
  const key = stableStringify(schema ?? {});
  let v = cache.get(key);
  if (v === undefined) {
    const s = schema ?? {};
    try {
      v = compiler().compile(s);
    } catch (e) {
      v = `the tool's schema does not compile: ${(e as Error).message}`;
    } finally {
      // ajv also keeps what it compiled by the schema object: the same object changed since would get the old code.
      if (typeof s === 'object' && s !== null) compiler().removeSchema(s);
    }
    cache.set(key, v);
  }
  return v;
}

/** Problems with one call against the catalog; [] when valid. */
export function schemaErrors(call: ParsedCall, tools: readonly OpenAITool[]): string[] {
  const tool = tools.find((t) => t.function.name === call.name);
  if (!tool) return [`${call.name}: not a tool of this case`];
  const schema = tool.function.parameters ?? {};
  if (interpretable(schema, AJV_KEYWORDS)) {
    if (validates(schema, call.arguments)) return [];
    return walkErrors(schema, call.arguments)
      .slice(0, 5)
      .map((e) => `${call.name}${e.instancePath ? ` ${e.instancePath}` : ''}: ${e.message}`);
  }
  const v = validator(tool.function.parameters);
  if (typeof v === 'string') return [`${call.name}: ${v}`];
  if (v(call.arguments)) return [];
  return (v.errors ?? []).slice(0, 5).map((e) => formatAjvError(call.name, e));
}

/** One ajv error as a problem line. */
export function formatAjvError(name: string, e: ErrorObject): string {
  return `${name}${e.instancePath ? ` ${e.instancePath}` : ''}: ${e.message ?? 'invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`;
}
