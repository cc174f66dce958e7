/**
 * The grammar of a tool call in each family's native format, built from the offered tools' schemas.
 *
 * Each family gives:
 *   - `root`: the llama.cpp lazy grammar's root — what must follow from the trigger word to the end of the output
 *     (one or more calls, nothing after them but whitespace: the server ends generation when the grammar
 *     completes);
 *   - `triggers`: the words that switch the grammar on. Before a trigger the model writes freely, so it can still
 *     answer in prose and abstain;
 *   - `preservedTokens`: marker tokens (llama.cpp requires a single-token trigger word to be listed here);
 *   - `tags`: the same constraint as xgrammar "triggered tags" (begin literal, content grammar, end literal) for
 *     vLLM and SGLang structural tags: free text, and wherever a begin appears, a conforming call up to its end.
 *
 * The formats follow harness/parse/families/* (the strict tier's reading of each family), so a call the strict
 * parser accepts is what the grammar allows. Known gaps: key order inside a JSON call is `name` then
 * `arguments`; Functionary v3.2 completions output starts after the prompt's `>>>`, so no trigger appears there.
 */
import type { Family, ToolSchema } from '../parse/index.ts';
import { alt, lit, RuleSet, seq } from './gbnf.ts';
import { SchemaGrammar, type SchemaGrammarOptions, type ValueSyntax } from './schema-gbnf.ts';

export interface TriggeredTag {
  begin: string;
  /** GBNF expression over `rules` for the text between begin and end. */
  content: string;
  end: string;
}

export interface CallFormat {
  family: Family;
  rules: RuleSet;
  root: string;
  triggers: string[];
  preservedTokens: string[];
  tags: TriggeredTag[];
}

const DS = {
  callsBegin: '<｜tool▁calls▁begin｜>',
  callBegin: '<｜tool▁call▁begin｜>',
  sep: '<｜tool▁sep｜>',
  callEnd: '<｜tool▁call▁end｜>',
  callsEnd: '<｜tool▁calls▁end｜>',
};

type Builder = (tools: readonly ToolSchema[], g: SchemaGrammar) => Omit<CallFormat, 'family' | 'rules'>;

const params = (t: ToolSchema): unknown => t.parameters ?? { type: 'object', properties: {} };

/** A tool's arguments as one value of the syntax (an object, or any object when the tool gives no schema). */
function argsValue(g: SchemaGrammar, t: ToolSchema, syntax: ValueSyntax): string {
  const p = params(t) as Record<string, unknown>;
  return g.value({ type: 'object', ...p }, syntax);
}

/** `{"name": "NAME", "<argsKey>": ARGS}` for each tool, as one alternation. */
function jsonCall(g: SchemaGrammar, tools: readonly ToolSchema[], argsKey: string, extra = ''): string {
  const ws = g.ws();
  const colon = seq(ws, lit(':'), ws);
  const sep = seq(ws, lit(','), ws);
  return g.rules.define(
    `call-${argsKey}`,
    alt(
      tools.map((t) =>
        g.rules.define(
          `call-${t.name}`,
          seq(
            lit('{'),
            ws,
            lit('"name"'),
            colon,
            lit(JSON.stringify(t.name)),
            sep,
            lit(JSON.stringify(argsKey)),
            colon,
            argsValue(g, t, 'json'),
            extra,
            ws,
            lit('}'),
          ),
        ),
      ),
    ),
  );
}

const hermes: Builder = (tools, g) => {
  const ws = g.ws();
  const call = jsonCall(g, tools, 'arguments');
  const block = g.rules.define('tool-call-block', seq(lit('<tool_call>'), ws, call, ws, lit('</tool_call>')));
  return {
    root: seq(block, g.more(`${ws} ${block}`), ws),
    triggers: ['<tool_call>'],
    preservedTokens: ['<tool_call>', '</tool_call>'],
    tags: [{ begin: '<tool_call>', content: seq(ws, call, ws), end: '</tool_call>' }],
  };
};

const qwen3Xml: Builder = (tools, g) => {
  const ws = g.ws();
  const nl = '"\\n"?';
  const fn = g.rules.define(
    'xml-function',
    alt(
      tools.map((t) => {
        const p = params(t) as { properties?: Record<string, unknown>; required?: unknown };
        const props = p.properties && typeof p.properties === 'object' ? p.properties : {};
        const required = new Set(Array.isArray(p.required) ? p.required : []);
        const pairs = Object.entries(props).map(([k, s]) => ({
          k,
          pair: g.rules.define(
            `param-${t.name}-${k}`,
            seq(lit(`<parameter=${k}>`), nl, g.value(s, 'xml'), nl, lit('</parameter>')),
          ),
          required: required.has(k),
        }));
        return g.rules.define(
          `function-${t.name}`,
          seq(lit(`<function=${t.name}>`), ws, g.members(pairs, ws, `params-${t.name}`), ws, lit('</function>')),
        );
      }),
    ),
  );
  const block = g.rules.define('xml-tool-call', seq(lit('<tool_call>'), ws, fn, ws, lit('</tool_call>')));
  return {
    root: seq(block, g.more(`${ws} ${block}`), ws),
    triggers: ['<tool_call>'],
    preservedTokens: ['<tool_call>', '</tool_call>'],
    tags: [{ begin: '<tool_call>', content: seq(ws, fn, ws), end: '</tool_call>' }],
  };
};

const llamaJson: Builder = (tools, g) => {
  const ws = g.ws();
  const call = jsonCall(g, tools, 'parameters');
  const tag = `(${lit('<|python_tag|>')} ${ws})?`;
  const sep = g.rules.define('llama-sep', `${ws} ";" ${ws} | "\\n" ${ws}`);
  const more = g.more(`${sep} ${tag} ${call}`);
  // after the `{"name"` trigger: the rest of the first call, then any further calls
  const tail = alt(
    tools.map((t) =>
      seq(
        g.ws(),
        lit(':'),
        ws,
        lit(JSON.stringify(t.name)),
        ws,
        lit(','),
        ws,
        lit('"parameters"'),
        ws,
        lit(':'),
        ws,
        argsValue(g, t, 'json'),
        ws,
        lit('}'),
      ),
    ),
  );
  return {
    root: seq(tag, call, more, ws),
    triggers: ['<|python_tag|>', '{"name"'],
    preservedTokens: ['<|python_tag|>'],
    tags: [
      { begin: '<|python_tag|>', content: seq(ws, call, more, ws), end: '' },
      { begin: '{"name"', content: seq(g.rules.define('llama-call-tail', tail), more, ws), end: '' },
    ],
  };
};

const pythonic: Builder = (tools, g) => {
  const ws = g.ws();
  const comma = seq(ws, lit(','), ws);
  const argsOf = (t: ToolSchema) => {
    const p = params(t) as { properties?: Record<string, unknown>; required?: unknown };
    const props = p.properties && typeof p.properties === 'object' ? p.properties : {};
    const required = new Set(Array.isArray(p.required) ? p.required : []);
    const pairs = Object.entries(props).map(([k, s]) => ({
      k,
      pair: seq(lit(k), ws, lit('='), ws, g.value(s, 'python')),
      required: required.has(k),
    }));
    return g.members(pairs, comma, `kwargs-${t.name}`);
  };
  const call = g.rules.define(
    'py-call',
    alt(tools.map((t) => g.rules.define(`py-call-${t.name}`, seq(lit(`${t.name}(`), ws, argsOf(t), ws, lit(')'))))),
  );
  const list = g.rules.define('py-call-list', seq(lit('['), ws, call, g.more(`${comma} ${call}`), ws, lit(']')));
  return {
    root: seq(`(${lit('<|python_start|>')} ${ws})?`, list, ws, `(${lit('<|python_end|>')} ${ws})?`),
    triggers: ['<|python_start|>', ...tools.map((t) => `[${t.name}(`)],
    preservedTokens: ['<|python_start|>', '<|python_end|>'],
    tags: tools.map((t) => ({
      begin: `[${t.name}(`,
      content: seq(ws, argsOf(t), ws, lit(')'), g.more(`${comma} ${call}`), ws),
      end: ']',
    })),
  };
};

const mistral: Builder = (tools, g) => {
  const ws = g.ws();
  const sep = seq(ws, lit(','), ws);
  const id = seq(sep, lit('"id"'), ws, lit(':'), ws, lit('"'), '[A-Za-z0-9]{9}', lit('"'));
  const call = jsonCall(g, tools, 'arguments', `(${id})?`);
  const list = g.rules.define('mistral-list', seq(lit('['), ws, call, g.more(`${sep} ${call}`), ws, lit(']')));
  // v11+: NAME[ARGS]{…} (v13: NAME[CALL_ID]id[ARGS]{…}), repeated with [TOOL_CALLS]
  const v11 = g.rules.define(
    'mistral-v11-call',
    alt(
      tools.map((t) => seq(lit(t.name), `(${lit('[CALL_ID]')} [A-Za-z0-9]+)?`, lit('[ARGS]'), argsValue(g, t, 'json'))),
    ),
  );
  const body = g.rules.define(
    'mistral-body',
    alt([seq(ws, list), seq(v11, g.more(`${ws} ${lit('[TOOL_CALLS]')} ${v11}`))]),
  );
  return {
    root: seq(lit('[TOOL_CALLS]'), body, ws),
    triggers: ['[TOOL_CALLS]'],
    preservedTokens: ['[TOOL_CALLS]', '[ARGS]', '[CALL_ID]'],
    tags: [{ begin: '[TOOL_CALLS]', content: alt([seq(ws, list), v11]), end: '' }],
  };
};

const granite: Builder = (tools, g) => {
  const ws = g.ws();
  const sep = seq(ws, lit(','), ws);
  const call = jsonCall(g, tools, 'arguments');
  const list = g.rules.define('granite-list', seq(lit('['), ws, call, g.more(`${sep} ${call}`), ws, lit(']')));
  return {
    root: seq(lit('<|tool_call|>'), ws, list, ws),
    triggers: ['<|tool_call|>'],
    preservedTokens: ['<|tool_call|>'],
    tags: [{ begin: '<|tool_call|>', content: seq(ws, list), end: '' }],
  };
};

const gemma4: Builder = (tools, g) => {
  const ws = g.ws();
  const inner = g.rules.define('gemma-call-body', alt(tools.map((t) => seq(lit(t.name), argsValue(g, t, 'gemma')))));
  const call = g.rules.define('gemma-call', seq(lit('<|tool_call>'), lit('call:'), inner, lit('<tool_call|>')));
  return {
    root: seq(call, g.more(`${ws} ${call}`), ws),
    triggers: ['<|tool_call>'],
    preservedTokens: ['<|tool_call>', '<tool_call|>', '<|"|>'],
    tags: [{ begin: '<|tool_call>', content: seq(lit('call:'), inner), end: '<tool_call|>' }],
  };
};

const deepseek: Builder = (tools, g) => {
  const ws = g.ws();
  const v31 = tools.map((t) =>
    seq(lit(DS.callBegin), lit(t.name), lit(DS.sep), argsValue(g, t, 'json'), lit(DS.callEnd)),
  );
  const v3 = tools.map((t) =>
    seq(
      lit(DS.callBegin),
      lit('function'),
      lit(DS.sep),
      lit(`${t.name}\n`),
      lit('```json\n'),
      argsValue(g, t, 'json'),
      lit('\n```'),
      lit(DS.callEnd),
    ),
  );
  const call = g.rules.define('deepseek-call', alt([...v31, ...v3]));
  const content = seq(ws, call, g.more(`${ws} ${call}`), ws);
  return {
    root: seq(lit(DS.callsBegin), content, lit(DS.callsEnd), ws),
    triggers: [DS.callsBegin],
    preservedTokens: Object.values(DS),
    tags: [{ begin: DS.callsBegin, content, end: DS.callsEnd }],
  };
};

const functionary: Builder = (tools, g) => {
  const ws = g.ws();
  const seg = g.rules.define(
    'functionary-segment',
    alt(tools.map((t) => seq(lit(`${t.name}\n`), argsValue(g, t, 'json')))),
  );
  const v31 = g.rules.define('functionary-v31', alt(tools.map((t) => seq(lit(`${t.name}>`), argsValue(g, t, 'json')))));
  return {
    root: alt([
      seq(lit('>>>'), seg, g.more(`${ws} ${lit('>>>')} ${seg}`), ws),
      seq(
        lit('<function='),
        v31,
        lit('</function>'),
        g.more(`${ws} ${lit('<function=')} ${v31} ${lit('</function>')}`),
        ws,
      ),
    ]),
    triggers: ['>>>', '<function='],
    preservedTokens: [],
    tags: [
      { begin: '>>>', content: seg, end: '' },
      { begin: '<function=', content: v31, end: '</function>' },
    ],
  };
};

/** Families with a call grammar (the others are refused by `constraintFor`, with the reason). */
const BUILDERS: Partial<Record<Family, Builder>> = {
  hermes,
  qwen3_xml: qwen3Xml,
  llama_json: llamaJson,
  llama_pythonic: pythonic,
  mistral,
  granite,
  gemma4,
  deepseek,
  functionary,
};

export const CONSTRAINABLE_FAMILIES = Object.keys(BUILDERS) as Family[];

/** The call grammar of `family` for these tools. */
export function callFormat(family: Family, tools: readonly ToolSchema[], opts: SchemaGrammarOptions = {}): CallFormat {
  if (tools.length === 0) throw new Error('callFormat: no tools to constrain to');
  const rules = new RuleSet();
  const g = new SchemaGrammar(rules, opts);
  const build = BUILDERS[family];
  if (!build)
    throw new Error(
      `callFormat: no call grammar for the ${family} family yet (constrainable: ${CONSTRAINABLE_FAMILIES.join(', ')})`,
    );
  return { family, rules, ...build(tools, g) };
}

/** The llama.cpp grammar text (root = from the trigger to the end). */
export function lazyGbnf(f: CallFormat): string {
  return f.rules.toGbnf(f.root);
}

/** The grammar of one structural tag's content (root = what lies between begin and end). */
export function tagGbnf(f: CallFormat, tag: TriggeredTag): string {
  return f.rules.toGbnf(tag.content);
}
