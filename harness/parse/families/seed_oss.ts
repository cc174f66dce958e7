/**
 * ByteDance Seed-OSS: `<seed:tool_call>\n<function=f>\n<parameter=a>value</parameter>\n</function>\n</seed:tool_call>`,
 * reasoning in `<seed:think>…</seed:think>` (reasoning.ts).
 *
 * Values as in qwen3_xml (raw text typed by the schema; one newline trimmed at each end). Strict (vLLM seed_oss /
 * llama.cpp): the Qwen3-XML function blocks inside `<seed:tool_call>`; a missing `</parameter>` is tolerated as in
 * qwen3_xml. Lenient: sloppy tags, a missing `</function>` or `</seed:tool_call>`, a block without its wrapper.
 */
import type { FamilyResult, ParseCtx, ParsedCall } from '../types.ts';
import { parseXmlCalls, QWEN_LOOSE, QWEN_STRICT, xmlFunctionBlock, type Tags } from './qwen3_xml.ts';

const STRICT: Tags = {
  ...QWEN_STRICT,
  open: /<seed:tool_call>/y,
  close: /<\/seed:tool_call>/y,
  search: /<seed:tool_call>/g,
};
const LOOSE: Tags = {
  ...QWEN_LOOSE,
  open: /<\s*seed\s*:\s*tool_call\s*>/iy,
  close: /<\s*\/\s*seed\s*:\s*tool_call\s*>/iy,
  search: /<\s*seed\s*:\s*tool_call\s*>/gi,
};

export function parseSeedOss(text: string, ctx: ParseCtx): FamilyResult {
  return parseXmlCalls(text, ctx, STRICT, LOOSE, 'missing seed:tool_call wrapper');
}

export function renderSeedOss(calls: ParsedCall[]): string {
  return calls.map((c) => `<seed:tool_call>\n${xmlFunctionBlock(c, false)}\n</seed:tool_call>`).join('\n');
}
