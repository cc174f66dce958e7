/**
 * Did the text try to call a tool, and was the try cut off? Independent of whether a call is recovered:
 * attribution needs "attempted but unrecoverable" and "truncated" apart from "no call attempted".
 */
import { CALL_LIKE } from './generic.ts';

const MARKERS: RegExp[] = [
  /<\s*\/?\s*tool_call\s*>/i, // hermes / qwen
  /<\|\s*tool_call\s*\|?>|<tool_call\|>/i, // granite / gemma4
  /\[\s*TOOL_CALLS\s*\]|\[ARGS\]/i, // mistral
  /<\s*function\s*=/i, // qwen3_xml / functionary v3.1
  /<\s*[｜|]\s*tool[▁_ ]?calls?[▁_ ]?begin/i, // deepseek
  /(?:^|\n)[ \t]*>>>[ \t]*(?!all\b)[A-Za-z_][\w.-]*[ \t]*\n/, // functionary v3.2
  /<\|\s*python_tag\s*\|>|<\|python_start\|>/, // llama
  /to\s*=\s*functions\./, // gpt-oss harmony recipient
  /<\s*\/?\s*arg_(?:key|value)\s*>/i, // glm
  /<\|\s*tool_calls?_(?:section_)?begin\s*\|>/i, // kimi
  /<\s*\/?\s*[｜|]\s*DSML\s*[｜|]/i, // deepseek dsml
  /<\s*minimax\s*:\s*tool_call|<\s*invoke\s+name\s*=/i, // minimax
  /<\s*seed\s*:\s*tool_call/i, // seed-oss
  /<\|\s*tool_call_start\s*\|>/i, // lfm2
  /<\|\s*tools_prefix\s*\|>/i, // apertus
  /<\s*function(?:\s+|\u0120)?name\s*=/i, // minicpm
  /<\|\s*START_ACTION\s*\|>|\bAction:\s*```/i, // command-r
  /<\s*\/?\s*TOOLCALL\s*>/, // nemotron
  /<\s*\/?\s*tool_calls\s*>/i, // jamba
  /\bfunctools\s*\[/, // firefunction, phi-4-mini
  /<\|\s*action_start\s*\|>/i, // internlm
];

/** A fence that holds JSON / a call, or is labelled as a tool call. */
const FENCE =
  /```[ \t]*(?:(?:tool_call|tool_code|tool_use|function_call|functions?)\b[^\n]*\n|(?:[\w-]+[ \t]*)?\r?\n\s*(?:[[{]|[A-Za-z_][\w.]*\s*\())/i;
const PY_LIST = /\[\s*[A-Za-z_][\w.]*\s*\(\s*(?:[A-Za-z_]\w*\s*=|\))/;
const PY_LINE = /(?:^|\n)[ \t]*`{0,3}[A-Za-z_][\w.]*[ \t]*\([ \t]*(?:[A-Za-z_]\w*[ \t]*=|\{)/;
const JSON_NAME = /[{,]\s*["']?(?:name|function|tool|tool_name|function_name|action)["']?\s*:\s*["'{]/;

/** Every marker in one case-insensitive pass (one scan of the text instead of one per family). */
const ANY_MARKER = new RegExp(MARKERS.map((re) => `(?:${re.source})`).join('|'), 'i');

export function detectAttempt(text: string): boolean {
  return ANY_MARKER.test(text) || JSON_NAME.test(text) || FENCE.test(text) || PY_LIST.test(text) || PY_LINE.test(text);
}

/**
 * The text ends inside an unclosed `{`/`[`/`(` (or string) whose opening region looks like a call.
 * Double-quoted strings are tracked only inside brackets (prose quotes are unbalanced too often).
 */
export function unbalancedTail(text: string): boolean {
  const stack: number[] = [];
  let inStr: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inStr) {
      if (c === '\\') i++;
      else if (c === inStr) inStr = null;
      continue;
    }
    if (c === '"' && stack.length > 0) inStr = '"';
    else if (c === '{' || c === '[' || c === '(') stack.push(i);
    else if (c === '}' || c === ']' || c === ')') stack.pop();
  }
  if (stack.length === 0 && !inStr) return false;
  const from = stack.length > 0 ? stack[0]! : 0;
  const tail = text.slice(Math.max(0, from - 1));
  return (
    CALL_LIKE.test(tail) ||
    PY_LIST.test(tail) ||
    /^\s*\[?\s*[A-Za-z_][\w.]*\s*\(\s*[A-Za-z_]\w*\s*=/.test(text.slice(Math.max(0, from - 64)))
  );
}
