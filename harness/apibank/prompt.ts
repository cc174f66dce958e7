// The reference runner's two messages for one task (docs/apibank.md, "Prompts"): the system prompt (output contract,
// role prompt, the API-Bank hard rule, the final reminder) and the user message (API descriptions as JSON lines,
// the level's note, the dialogue as USER:/ASSISTANT:/API_RESULT: lines, the format instruction), with Python's
// json.dumps spacing. `derived/curated_tasks_single_prompts.jsonl` holds the reference's own bytes for 445 tasks.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { floatRepr } from '../core/pyliteral/index.ts';
import { PyFloat } from '../core/pyliteral/pyjson.ts';
import { API_DESCRIPTIONS } from './descriptions.ts';
import type { ApibankTask, DialogueRow, Level } from './tasks.ts';

/** Python's `json.dumps(x, ensure_ascii=False)` of JSON data: `", "` and `": "` separators, floats in repr form. */
export function pyJson(x: unknown): string {
  if (x === null || x === undefined) return 'null';
  if (x instanceof PyFloat) return pyJsonFloat(x.value);
  switch (typeof x) {
    case 'boolean':
      return x ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
      return Number.isInteger(x) && Math.abs(x) < 1e16 ? String(x) : pyJsonFloat(x);
    case 'string':
      return JSON.stringify(x);
    case 'object':
      if (Array.isArray(x)) return `[${x.map(pyJson).join(', ')}]`;
      return `{${Object.entries(x as Record<string, unknown>)
        .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`)
        .join(', ')}}`;
    default:
      // json.dumps(..., default=str)
      return JSON.stringify(String(x));
  }
}

const pyJsonFloat = (x: number): string =>
  Number.isNaN(x) ? 'NaN' : x === Infinity ? 'Infinity' : x === -Infinity ? '-Infinity' : floatRepr(x);

/** Levels whose prompt never lists these APIs (`_skip_apis_for_level`). */
const SKIP_L1 = new Set(['SearchEngine', 'Translate', 'ToolSearcher']);
const SKIP_OTHER = new Set(['SearchEngine', 'Translate']);
export const skipApisOf = (level: Level): ReadonlySet<string> => (level === '1' ? SKIP_L1 : SKIP_OTHER);

/** The reference's hard-coded ToolSearcher description (differs from API-Bank's own class). */
const TOOLSEARCHER_DESCRIPTION = {
  name: 'ToolSearcher',
  description: 'Searches for relevant tools in the API library based on concise keywords.',
  input_parameters: {
    keywords: { type: 'str', description: "Concise keywords describing the user request, such as 'add schedule'." },
  },
  output_parameters: {
    best_matchs: { type: 'Union[List[dict], dict]', description: 'The best matching API description or descriptions.' },
  },
};

export function apiDescriptionLine(name: string): string {
  if (name === 'ToolSearcher') return pyJson(TOOLSEARCHER_DESCRIPTION);
  const d = API_DESCRIPTIONS[name];
  if (!d) throw new Error(`API-Bank: no description of API '${name}' (not an API-Bank class)`);
  return pyJson({
    name,
    description: d.description,
    input_parameters: d.input_parameters,
    output_parameters: d.output_parameters,
  });
}

/** `_description_names_for_task`: L1 lists the dialogue's APIs, L2/L3 only ToolSearcher. */
export const descriptionNames = (t: Pick<ApibankTask, 'level' | 'api_names'>): string[] =>
  t.level === '1' ? [...t.api_names].sort().filter((n) => !skipApisOf('1').has(n)) : ['ToolSearcher'];

function compactToolSearchOutput(output: unknown): unknown {
  const clean = (item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).filter(([k]) => k !== 'desc_for_search'))
      : item;
  return Array.isArray(output) ? output.map(clean) : clean(output);
}

/** `_format_chat_history`: one line per row (this string is also the outputs' `question`). */
export function formatChatHistory(rows: readonly DialogueRow[]): string {
  const lines: string[] = [];
  for (const row of rows) {
    if (row.role === 'User') lines.push(`USER: ${row.text ?? ''}`);
    else if (row.role === 'AI') lines.push(`ASSISTANT: ${row.text ?? ''}`);
    else if (row.role === 'API') {
      const result = (row.result ?? {}) as Record<string, unknown>;
      const output = row.api_name === 'ToolSearcher' ? compactToolSearchOutput(result.output) : result.output;
      lines.push(
        'API_RESULT: ' + pyJson({ api_name: row.api_name, input: result.input, output, exception: result.exception }),
      );
    }
  }
  return lines.join('\n');
}

const LEVEL_NOTE: Record<Level, string> = {
  '1': '',
  '2': '\nFor Level 2, use ToolSearcher first when the dialogue has not yet searched for a tool. If ToolSearcher output already appears in the history, use the returned API descriptions from that API_RESULT.',
  '3': '\nFor Level 3, the user requirement may require multiple API calls. Predict only the next API call for the current step. Use ToolSearcher when the needed tool has not yet been searched. If ToolSearcher output already appears in the history, use those returned API descriptions.',
};

/** `format_prompt`: the user message. */
export function userPrompt(t: ApibankTask): string {
  return (
    'Predict the next API call in the dialogue.\n\n' +
    'AVAILABLE API DESCRIPTIONS:\n' +
    descriptionNames(t).map(apiDescriptionLine).join('\n') +
    LEVEL_NOTE[t.level] +
    '\n\nDIALOGUE HISTORY BEFORE THE NEXT API CALL:\n' +
    formatChatHistory(t.chat_history) +
    '\n\nReturn exactly one API call in this format:\n' +
    "[ApiName(arg1='value', arg2=123)]\n" +
    'Do not include prose before or after the API call. If any required argument appears missing, still output a ' +
    "complete call and use the best-supported value or 'UNKNOWN'."
  );
}

/** The user message with the other agents' reports appended (team topologies). */
export const withContext = (user: string, context: string): string =>
  context.trim() ? `${user}\n\nCONTEXT FROM OTHER AGENTS OR PRIOR STAGES:\n${context.trim()}` : user;

// output_contracts.py: which roles of which topology get the protected final-output contract.
const FINAL_ROLES: Record<string, ReadonlySet<string>> = {
  single: new Set(['solver', 'caller', 'coder', 'patcher', 'planner']),
  independent: new Set(['solver', 'caller', 'coder', 'patcher', 'planner']),
  decentralized: new Set(['debater']),
  sequential: new Set(['verifier']),
  centralized: new Set([
    'manager',
    'manager_r8',
    'manager_r10',
    'caller_worker',
    'validator_worker',
    'call_normalizer_worker',
  ]),
};
const CONTRACT =
  "PROTECTED FINAL OUTPUT CONTRACT:\nEnd with exactly one API call in square brackets, e.g. [ApiName(arg='value')].\n" +
  'This contract is not optional. Keep reasoning concise enough that the response reaches the required final artifact. If uncertain, still provide your best valid final artifact in the required format.';
const REMINDER =
  'Final reminder: satisfy the protected final output contract above exactly; do not stop before emitting the required final artifact.';

const HARD_RULE =
  "API-BANK HARD RULE: Every evaluated row requires one complete, parseable bracketed API call. Never answer with a refusal, blocker, analysis-only response, or missing final call. If a required value appears unavailable, still choose the best next API and fill every required keyword with the best-supported value; use 'UNKNOWN' only when no value can be inferred. Wrong arguments are model errors, but unparseable or absent calls are invalid.";

/** The built-in prompt the reference uses when the role's file is missing. */
export const fallbackRolePrompt = (style: string): string =>
  `You are solving API-Bank API-call tasks. Given a dialogue history and API descriptions, emit the exact next API call with the correct API name and keyword arguments.\n\nImplementation style: ${style}.`;

/** Python's str.rstrip()/strip() on the whitespace a prompt file can hold. */
const rstrip = (s: string) => s.replace(/[\s\u001c-\u001f\u0085]+$/u, '');
const strip = (s: string) => rstrip(s).replace(/^[\s\u001c-\u001f\u0085]+/u, '');

/**
 * `_load_prompt`: the role prompt (stripped; or the fallback) + the hard rule (+ a suffix), wrapped in the output
 * contract and the reminder when the role's reply is final in its topology.
 */
export function systemPrompt(rolePrompt: string, o: { topology: string; role: string; suffix?: string }): string {
  let prompt = rstrip(strip(rolePrompt)) + '\n\n' + HARD_RULE;
  if (o.suffix) prompt = rstrip(prompt) + '\n' + o.suffix;
  const final = FINAL_ROLES[o.topology]?.has(o.role) ?? false;
  if (!final || prompt.includes('PROTECTED FINAL OUTPUT CONTRACT:')) return prompt;
  return `${CONTRACT}\n\n${rstrip(prompt)}\n\n${REMINDER}`;
}

/** The role prompt file of a topology (`<dir>/<topology>/apibank/<role>.txt`), or the reference's fallback. */
export function loadRolePrompt(dir: string | undefined, topology: string, role: string, style: string): string {
  const path = dir ? join(dir, topology, 'apibank', `${role}.txt`) : undefined;
  return path && existsSync(path) ? strip(readFileSync(path, 'utf8')) : fallbackRolePrompt(style);
}
