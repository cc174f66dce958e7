/**
 * Writing GBNF (llama.cpp's grammar format, also read by xgrammar's EBNF front end): literals, character classes
 * and a rule set that names rules by content, so one sub-grammar used by many tools is written once.
 *
 * Only what the generators here need: literals, classes, rule references, groups, `|`, `*`, `+`, `?` and
 * `{m,n}`. Rule names use letters, digits and `-` only (llama.cpp's parser has no `_` in names).
 */

/** A GBNF literal: `"…"` with the characters GBNF gives meaning to escaped. */
export function lit(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Escape one character for use inside `[...]`. */
export function classChar(ch: string): string {
  const c = ch.codePointAt(0)!;
  if (ch === ']' || ch === '[' || ch === '\\' || ch === '^' || ch === '-') return `\\${ch}`;
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, '0')}`;
  return ch;
}

/** `x{min,max}` (max undefined: unbounded), written the short way when it has one. */
export function repeat(x: string, min: number, max: number | undefined): string {
  const g = /^[\w-]+$|^"[^"]*"$|^\[[^\]]*\]$|^\(.*\)$/s.test(x) ? x : `(${x})`;
  if (max === undefined) return min === 0 ? `${g}*` : min === 1 ? `${g}+` : `${g}{${min},}`;
  if (min === 0 && max === 1) return `${g}?`;
  if (min === max) return `${g}{${min}}`;
  return `${g}{${min},${max}}`;
}

/** Alternatives, each grouped when needed. */
export function alt(xs: readonly string[]): string {
  const uniq = [...new Set(xs)];
  if (uniq.length === 1) return uniq[0]!;
  return `(${uniq.join(' | ')})`;
}

export function seq(...xs: string[]): string {
  return xs.filter((x) => x !== '').join(' ');
}

/**
 * Named rules. `define(hint, body)` returns the name of a rule with that body, reusing an existing rule with the
 * same body, so identical sub-schemas across tools share one rule.
 */
export class RuleSet {
  private readonly byBody = new Map<string, string>();
  private readonly rules = new Map<string, string>();
  private readonly used = new Set<string>();

  define(hint: string, body: string): string {
    const have = this.byBody.get(body);
    if (have) return have;
    const name = this.reserve(hint);
    this.byBody.set(body, name);
    this.rules.set(name, body);
    return name;
  }

  /** A rule defined before its body is known (recursive schemas). */
  reserve(hint: string): string {
    const base =
      hint
        .replace(/[^A-Za-z0-9-]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .toLowerCase() || 'r';
    let name = base;
    for (let i = 2; this.used.has(name) || name === 'root'; i++) name = `${base}-${i}`;
    this.used.add(name);
    return name;
  }

  fill(name: string, body: string): void {
    this.rules.set(name, body);
  }

  /** The grammar text: `root ::= …` first, then every rule, one per line. */
  toGbnf(root: string): string {
    const lines = [`root ::= ${root}`];
    for (const [name, body] of this.rules) lines.push(`${name} ::= ${body}`);
    return `${lines.join('\n')}\n`;
  }
}
