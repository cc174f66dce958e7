import { describe, expect, it } from 'vitest';
import { mapCase } from './cases.ts';

// A describeEval trace's toolNotes (what an MCP tool source changed in what its server offered) in the case view.
const meta = { suite: 'my-eval', id: '1', trial: 0, error: null, pass: true, scores: { tool_calls: 1 } };
const NOTE_A = `mcp server 'fs': tool "bad name!" (tools[2]) left out: a tool name must be 1-64 letters, digits, '_' or '-'`;
const NOTE_B =
  "mcp server 'fs': tool 'odd': inputSchema is not a JSON Schema object; replaced by an empty object schema";

describe("the viewer's describeEval case: the tool notes", () => {
  it('shows each note on its own line; a trace without notes has no such section', () => {
    const m = mapCase({ suite: 'my-eval', meta, trace: { toolNotes: [NOTE_A, NOTE_B], output: { toolCalls: [] } } });
    expect(m.detail.sections.filter((s) => s.title === 'Tool notes')).toEqual([
      { kind: 'text', title: 'Tool notes', text: `${NOTE_A}\n${NOTE_B}` },
    ]);
    expect(m.problems).toEqual([]);
    const none = mapCase({ suite: 'my-eval', meta, trace: { output: { toolCalls: [] } } });
    expect(none.detail.sections.some((s) => s.title === 'Tool notes')).toBe(false);
  });

  it('notes that are not a list of strings are a problem naming the field, and the rest of the case shows', () => {
    const m = mapCase({ suite: 'my-eval', meta, trace: { toolNotes: [NOTE_A, 7], output: { toolCalls: [] } } });
    expect(m.detail.sections.some((s) => s.title === 'Tool notes')).toBe(false);
    expect(m.problems).toEqual([{ field: 'trace.toolNotes', message: 'expected a list of strings' }]);
    expect(m.detail.sections.map((s) => s.title)).toContain('Run');
  });
});
