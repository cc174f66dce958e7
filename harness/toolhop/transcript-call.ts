import type { ToolCall } from '../core/chat.ts';
import { pyJsonDumps, pyJsonLoads } from '../core/pyliteral/pyjson.ts';
import type { PyValue } from '../core/pyliteral/value.ts';

/**
 * A tool call as the reference writes it on a `[tool_call]` line of its text transcript: Python's
 * `json.dumps(call, ensure_ascii=False)` (`", "` and `": "` separators, non-ASCII kept) of the call as its history
 * holds it — the OpenAI SDK's field order (`id`, `function` with `arguments` then `name`, `type`) and the arguments
 * re-written by Python's json (`{}` when empty, `{"_malformed_arguments": …}` when they do not parse). Pure.
 */
export function referenceToolCallJson(call: ToolCall): string {
  const str = (v: string): PyValue => ({ t: 'str', v });
  const dict = (entries: Array<[string, PyValue]>): PyValue => ({
    t: 'dict',
    entries: entries.map(([k, v]) => [str(k), v]),
  });
  return pyJsonDumps(
    dict([
      ['id', str(call.id)],
      [
        'function',
        dict([
          ['arguments', str(historyArguments(call.function.arguments))],
          ['name', str(call.function.name)],
        ]),
      ],
      ['type', str(call.type ?? 'function')],
    ]),
  );
}

/** The reference's `_valid_json_arguments`: arguments that parse are written again by Python's json. */
function historyArguments(raw: string | undefined | null): string {
  if (raw === undefined || raw === null || raw === '') return '{}';
  try {
    return pyJsonDumps(pyJsonLoads(raw));
  } catch {
    return pyJsonDumps({
      t: 'dict',
      entries: [
        [
          { t: 'str', v: '_malformed_arguments' },
          { t: 'str', v: raw },
        ],
      ],
    });
  }
}
