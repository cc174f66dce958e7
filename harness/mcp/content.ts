import { z } from 'zod';

/**
 * A `tools/call` result as toolgauge reads it: looser than the protocol's own schema on purpose, so a content block
 * of a type this code does not know becomes a placeholder rather than a failed call.
 */
export const CallResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});
export type CallResult = z.infer<typeof CallResultSchema>;

/** A base64 payload's decoded size, without decoding it. */
const base64Bytes = (data: unknown) =>
  typeof data === 'string' ? Math.floor((data.replace(/=+$/, '').length * 3) / 4) : 0;

/** One content block as text: text as it is, anything binary or by reference as a one-line placeholder. */
function blockText(b: CallResult['content'][number]): string {
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  switch (b.type) {
    case 'text':
      return s(b.text);
    case 'image':
    case 'audio':
      return `[${b.type}: ${s(b.mimeType) || 'unknown type'}, ${base64Bytes(b.data)} bytes]`;
    case 'resource_link':
      return `[resource link: ${s(b.uri)}${s(b.name) ? ` (${s(b.name)})` : ''}]`;
    case 'resource': {
      const r = (b.resource ?? {}) as Record<string, unknown>;
      if (typeof r.text === 'string') return r.text;
      return `[resource: ${s(r.uri)}${s(r.mimeType) ? `, ${s(r.mimeType)}` : ''}, ${base64Bytes(r.blob)} bytes]`;
    }
    default:
      return `[${b.type} content]`;
  }
}

/**
 * The text the model gets for a result: the content blocks in order; the structured content as JSON only when there
 * is no content (the spec asks a server to send its structured content as text too, so it is there already); cut
 * at `maxChars` with a marker saying how long it was.
 */
export function resultText(r: CallResult, maxChars: number): string {
  const parts = r.content.map(blockText).filter((t) => t !== '');
  if (!parts.length && r.structuredContent) parts.push(JSON.stringify(r.structuredContent));
  return capText(parts.join('\n'), maxChars);
}

/** `text` cut at `max` characters with a marker (the whole length and the cap), else as it is. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n... [mcp result cut: ${text.length} chars, cap ${max}]`;
}
