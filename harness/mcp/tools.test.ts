import { describe, expect, it } from 'vitest';
import { MAX_DESCRIPTION_CHARS, toolSpecs } from './tools.ts';

describe('toolSpecs', () => {
  it('keeps a good tool as it is, prefixed; the server keeps its own name for calls', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    expect(toolSpecs('s', [{ name: 'find', description: 'Find', inputSchema: schema }], 'x_')).toEqual({
      specs: [{ name: 'x_find', remote: 'find', description: 'Find', parameters: schema }],
      notes: [],
    });
  });
  it('replaces a schema that is not an object schema, cuts a long description, leaves out a bad name: each noted', () => {
    const { specs, notes } = toolSpecs('s', [
      { name: 'a', inputSchema: [1] },
      { name: 'b', inputSchema: { type: 'object' }, description: 'd'.repeat(MAX_DESCRIPTION_CHARS + 5) },
      { name: 'c' },
      { name: 'no spaces please' },
      { name: 42 },
      { name: 'z'.repeat(65) },
    ]);
    expect(specs.map((s) => [s.name, s.parameters, s.description?.length])).toEqual([
      ['a', { type: 'object', properties: {} }, undefined],
      ['b', { type: 'object' }, MAX_DESCRIPTION_CHARS],
      ['c', { type: 'object', properties: {} }, undefined],
    ]);
    expect(notes).toHaveLength(6);
    expect(notes[0]).toBe("s: tool 'a': inputSchema is not a JSON Schema object; replaced by an empty object schema");
    expect(notes[1]).toBe(
      `s: tool 'b': description cut to ${MAX_DESCRIPTION_CHARS} of ${MAX_DESCRIPTION_CHARS + 5} chars`,
    );
    expect(notes.slice(3).every((n) => n.includes('left out'))).toBe(true);
  });
});
