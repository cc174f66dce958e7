// A small tool-call-format detector for templates, independent of harness/parse (which owns the parsers).
// It looks at the markers a template writes around tool calls; order matters (functionary is llama3-based).

export type TemplateFamily = 'hermes' | 'llama3' | 'mistral' | 'functionary' | 'deepseek' | 'generic';

const MARKERS: ReadonlyArray<[TemplateFamily, RegExp]> = [
  ['deepseek', /tool▁calls▁begin|tool_calls_begin/],
  ['mistral', /\[TOOL_CALLS\]/],
  ['functionary', />>>|<function=/],
  ['hermes', /<tool_call>/],
  ['llama3', /<\|python_tag\|>|ipython|<\|start_header_id\|>[\s\S]*"parameters"/],
];

/**
 * The tool-call family a template's own text points to, or null when it shows no known tool-call format
 * (e.g. a template that ignores tools). `generic` is never detected; it names the fallback reference template.
 */
export function detectFamily(source: string): TemplateFamily | null {
  for (const [family, re] of MARKERS) if (re.test(source)) return family;
  return null;
}
