/**
 * Text from data or from an endpoint, made safe to print: every character a terminal would act on instead of
 * showing — C0 controls and DEL (ESC starts escape sequences), C1 controls (U+0080–U+009F; U+009B is a one-byte
 * CSI), the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069, which reorder what follows), the
 * bidi marks (U+061C, U+200E, U+200F) and the line and paragraph separators (U+2028, U+2029) —
 * becomes a visible escape (`\x1b`, `\x9b`, `\u202e`). `keep` names the controls left as they are (newline, tab).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's job
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u061c\u200e\u200f\u2028\u2029]/g;

export function escapeTerminal(text: string, keep = ''): string {
  return text.replace(UNSAFE, (c) => {
    if (keep.includes(c)) return c;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
