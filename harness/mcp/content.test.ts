import { describe, expect, it } from 'vitest';
import { CallResultSchema, capText, resultText } from './content.ts';

const parse = (r: unknown) => CallResultSchema.parse(r);

describe('resultText', () => {
  it('joins the content blocks, each binary or linked block as a one-line placeholder', () => {
    const r = parse({
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAAAA==', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///x', name: 'x' },
        { type: 'resource', resource: { uri: 'file:///t', text: 'inline text' } },
        { type: 'resource', resource: { uri: 'file:///b', mimeType: 'application/pdf', blob: 'AAAA' } },
        { type: 'hologram' },
      ],
    });
    expect(resultText(r, 1000).split('\n')).toEqual([
      'a',
      '[image: image/png, 3 bytes]',
      '[audio: audio/wav, 4 bytes]',
      '[resource link: file:///x (x)]',
      'inline text',
      '[resource: file:///b, application/pdf, 3 bytes]',
      '[hologram content]',
    ]);
  });
  it('gives the structured content as JSON only when there is no content', () => {
    expect(resultText(parse({ content: [], structuredContent: { n: 1 } }), 100)).toBe('{"n":1}');
    expect(resultText(parse({ content: [{ type: 'text', text: 'one' }], structuredContent: { n: 1 } }), 100)).toBe(
      'one',
    );
    expect(resultText(parse({}), 100)).toBe('');
  });
  it('cuts at the cap with a marker that gives the whole length', () => {
    expect(capText('abcdef', 6)).toBe('abcdef');
    expect(capText('abcdefg', 3)).toBe('abc\n... [mcp result cut: 7 chars, cap 3]');
  });
  it('refuses what is not a tool result', () => {
    expect(CallResultSchema.safeParse({ content: 'text' }).success).toBe(false);
    expect(CallResultSchema.safeParse({ content: [{ text: 'no type' }] }).success).toBe(false);
  });
});
