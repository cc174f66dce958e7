import { describe, expect, it } from 'vitest';
import { transcriptText } from './reference-files.ts';
import { referenceToolCallJson } from './transcript-call.ts';

// The expected lines are what CPython prints for the reference's `json.dumps(call, ensure_ascii=False,
// default=str)` of the call as its history holds it, written out by hand.

const call = (args: string, name = 'f') => ({
  id: 'call_1',
  type: 'function' as const,
  function: { name, arguments: args },
});

describe('[tool_call] lines as the reference writes them', () => {
  it("Python's separators and field order, arguments re-written by Python's json, non-ASCII kept", () => {
    expect(referenceToolCallJson(call('{"a":1,"b":"é","c":[1.0,2],"d":{"x":null,"y":true}}'))).toBe(
      '{"id": "call_1", "function": {"arguments": "{\\"a\\": 1, \\"b\\": \\"é\\", \\"c\\": [1.0, 2], \\"d\\": {\\"x\\": null, \\"y\\": true}}", "name": "f"}, "type": "function"}',
    );
  });

  it('empty arguments become {}; arguments that do not parse are wrapped as _malformed_arguments', () => {
    expect(referenceToolCallJson(call(''))).toBe(
      '{"id": "call_1", "function": {"arguments": "{}", "name": "f"}, "type": "function"}',
    );
    expect(referenceToolCallJson(call('{"a": 1', 'g'))).toBe(
      '{"id": "call_1", "function": {"arguments": "{\\"_malformed_arguments\\": \\"{\\\\\\"a\\\\\\": 1\\"}", "name": "g"}, "type": "function"}',
    );
  });

  it('the transcript carries them under the assistant turn', () => {
    const text = transcriptText([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, tool_calls: [call('{"city":"Zürich"}')] },
    ]);
    expect(text).toBe(
      '=== USER ===\nq\n\n=== ASSISTANT ===\n[tool_call] {"id": "call_1", "function": {"arguments": "{\\"city\\": \\"Zürich\\"}", "name": "f"}, "type": "function"}\n\n',
    );
  });
});
