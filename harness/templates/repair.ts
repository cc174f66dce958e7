import { checkTemplate, type Finding, type FindingId } from './check.ts';
import { compileTemplate } from './engine.ts';
import { detectFamily } from './family.ts';
import { referenceTemplate } from './reference.ts';

// Repairs for counterfactual blame: re-render a case with a repaired template and see whether the outcome flips.
// A targeted repair (the same template minus the defect) isolates the defect best, so it is tried first and
// kept only when a re-check shows the defects gone and nothing new; otherwise the family's reference template.

export { REFERENCE_FAMILIES, referenceTemplate, type ReferenceFamily } from './reference.ts';

// ---------------------------------------------------------------------------------------------------------
// Targeted fixes

const DATE_LITERAL =
  /\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4}\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2},? \d{4}\b|\b\d{4}-\d{2}-\d{2}\b/g;

/** Blank the clock (strftime_now calls), the date_string variable and fixed date literals. */
function removeDates(source: string): string {
  let out = source.replace(/strftime_now\s*\(\s*(["'])[^"'\n]*\1\s*\)/g, '""').replace(DATE_LITERAL, '');
  if (/\bdate_string\b/.test(out)) out = `{%- set date_string = "" -%}\n${out}`;
  return out;
}

/** The raw-source spellings of a literal's text: as is, or with quotes escaped inside a "…" string literal. */
const spellings = (text: string): string[] => [
  text,
  text.replace(/\\/g, '\\\\').replace(/"/g, '\\"'),
  text.replace(/'/g, "\\'"),
];

function replaceSpelled(source: string, from: string, to: string): string {
  for (const [a, b] of spellings(from).map((s, i) => [s, spellings(to)[i]!] as const)) {
    if (a !== b && source.includes(a)) return source.split(a).join(b);
  }
  return source;
}

/** Undo doubled braces in the template's own literals: `{{"name"…` → `{"name"…`, `…"object"}}` → `…"object"}`. */
function undoubleBraces(source: string): string {
  let out = source;
  let literals: string[];
  try {
    literals = compileTemplate(source).literals;
  } catch {
    return source;
  }
  for (const literal of literals) {
    for (const m of literal.matchAll(/\{\{\s*["'<]/g)) {
      const line = literal.slice(m.index, (literal.indexOf('\n', m.index) + 1 || literal.length + 1) - 1);
      let fixed = line.replace(/^\{\{/, '{');
      if (/\}\}\s*$/.test(fixed) && (fixed.match(/\{/g) ?? []).length < (fixed.match(/\}/g) ?? []).length)
        fixed = fixed.replace(/\}\}(\s*)$/, '}$1');
      out = replaceSpelled(out, line, fixed);
    }
    const over = /\{[^\n]*"[^\n]*\}\}/.exec(literal);
    if (over) {
      const text = over[0];
      if ((text.match(/\{/g) ?? []).length < (text.match(/\}/g) ?? []).length)
        out = replaceSpelled(out, text, text.slice(0, -1));
    }
  }
  return out;
}

/** Drop the template's raise_exception calls whose messages the findings quote. */
function removeRaises(source: string, findings: Finding[]): string {
  let out = source;
  for (const f of findings) {
    const m = /raise_exception\((".*")\)/.exec(f.detail);
    if (!m) continue;
    let message: string;
    try {
      message = JSON.parse(m[1]!) as string;
    } catch {
      continue;
    }
    for (const q of ['"', "'"]) {
      const call = `raise_exception(${q}${message}${q})`;
      out = out.split(call).join('""');
    }
  }
  return out;
}

const TARGETED: ReadonlySet<FindingId> = new Set(['injected_date', 'doubled_braces', 'raises_on_standard_shape']);

/**
 * A repaired version of `source` that no longer has `findings`: a targeted edit when one verifiably works,
 * else the reference template of the template's family (detected from what it renders; generic when the family
 * is unknown), else null. With no findings the source itself is returned.
 */
export function repairTemplate(source: string, findings: Finding[]): string | null {
  try {
    if (findings.length === 0) return source;
    const ids = new Set(findings.map((f) => f.id));
    if ([...ids].every((id) => TARGETED.has(id))) {
      let fixed = source;
      if (ids.has('injected_date')) fixed = removeDates(fixed);
      if (ids.has('doubled_braces')) fixed = undoubleBraces(fixed);
      if (ids.has('raises_on_standard_shape')) fixed = removeRaises(fixed, findings);
      if (fixed !== source) {
        const after = checkTemplate(fixed);
        const clean = after.findings.every((f) => !ids.has(f.id)) && after.findings.length === 0;
        if (clean) return fixed;
      }
    }
    const family = detectFamily(source);
    return referenceTemplate(family ?? 'generic');
  } catch {
    return null;
  }
}
