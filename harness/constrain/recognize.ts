/**
 * A recognizer for GBNF grammar text (the llama.cpp format; the subset: rules, literals, character classes, `.`,
 * groups, `|`, `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}`, `#` comments). It reads the grammar as text — it shares
 * nothing with the generators in this folder — and decides with an Earley parser whether a string (or a prefix
 * of it) derives from `root`. Inputs are compared by Unicode code point, as llama.cpp does.
 *
 * Used by the tests (gold calls must be accepted, malformed ones rejected) and by the simulator (is this output
 * what a constrained decoder could have produced?).
 */

type Matcher = { ranges: Array<[number, number]>; negated: boolean };
type Sym = { nt: number } | { t: Matcher };

interface Production {
  lhs: number;
  rhs: Sym[];
}

export class GrammarSyntaxError extends Error {
  override name = 'GrammarSyntaxError';
}

// --- reading the grammar text ----------------------------------------------------------------------------

type Node =
  | { kind: 'ref'; name: string }
  | { kind: 'chars'; cps: number[] }
  | { kind: 'class'; m: Matcher }
  | { kind: 'alt'; alts: Node[][] }
  | { kind: 'rep'; node: Node; min: number; max: number | null };

class Reader {
  i = 0;
  constructor(readonly s: string) {}

  skip(): void {
    for (;;) {
      while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
      if (this.s[this.i] === '#') {
        while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
        continue;
      }
      return;
    }
  }

  fail(msg: string): never {
    throw new GrammarSyntaxError(`${msg} at offset ${this.i}: ${JSON.stringify(this.s.slice(this.i, this.i + 30))}`);
  }

  name(): string | null {
    const m = /^[A-Za-z0-9_-]+/.exec(this.s.slice(this.i, this.i + 200));
    return m ? m[0] : null;
  }

  /** A rule starts here: NAME ::= */
  atRuleStart(): boolean {
    const n = this.name();
    if (!n) return false;
    let j = this.i + n.length;
    while (j < this.s.length && /\s/.test(this.s[j]!)) j++;
    return this.s.startsWith('::=', j);
  }

  escape(): number {
    // at a backslash
    const c = this.s[this.i + 1];
    this.i += 2;
    const hex = (len: number) => {
      const h = this.s.slice(this.i, this.i + len);
      if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(h)) this.fail('bad hex escape');
      this.i += len;
      return parseInt(h, 16);
    };
    switch (c) {
      case 'n':
        return 10;
      case 'r':
        return 13;
      case 't':
        return 9;
      case 'x':
        return hex(2);
      case 'u':
        return hex(4);
      case 'U':
        return hex(8);
      case undefined:
        return this.fail('dangling backslash');
      default:
        return c.codePointAt(0)!;
    }
  }

  char(): number {
    if (this.s[this.i] === '\\') return this.escape();
    const cp = this.s.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }

  literal(): Node {
    this.i++; // "
    const cps: number[] = [];
    while (this.s[this.i] !== '"') {
      if (this.i >= this.s.length) this.fail('unterminated literal');
      cps.push(this.char());
    }
    this.i++;
    return { kind: 'chars', cps };
  }

  klass(): Node {
    this.i++; // [
    let negated = false;
    if (this.s[this.i] === '^') {
      negated = true;
      this.i++;
    }
    const ranges: Array<[number, number]> = [];
    while (this.s[this.i] !== ']') {
      if (this.i >= this.s.length) this.fail('unterminated character class');
      const lo = this.char();
      if (this.s[this.i] === '-' && this.s[this.i + 1] !== ']') {
        this.i++;
        const hi = this.char();
        ranges.push([lo, hi]);
      } else ranges.push([lo, lo]);
    }
    this.i++;
    return { kind: 'class', m: { ranges, negated } };
  }

  alternation(nested: boolean): Node[][] {
    const alts: Node[][] = [this.sequence(nested)];
    for (;;) {
      this.skip();
      if (this.s[this.i] !== '|') return alts;
      this.i++;
      alts.push(this.sequence(nested));
    }
  }

  sequence(nested: boolean): Node[] {
    const out: Node[] = [];
    for (;;) {
      this.skip();
      const c = this.s[this.i];
      if (c === undefined || c === '|' || c === ')') return out;
      if (!nested && this.atRuleStart()) return out;
      let node: Node;
      if (c === '"') node = this.literal();
      else if (c === '[') node = this.klass();
      else if (c === '.') {
        this.i++;
        node = { kind: 'class', m: { ranges: [], negated: true } };
      } else if (c === '(') {
        this.i++;
        const alts = this.alternation(true);
        this.skip();
        if (this.s[this.i] !== ')') this.fail('expected )');
        this.i++;
        node = { kind: 'alt', alts };
      } else {
        const n = this.name();
        if (!n) this.fail('unexpected character');
        this.i += n.length;
        node = { kind: 'ref', name: n };
      }
      // postfix operators (no whitespace before them)
      for (;;) {
        const p = this.s[this.i];
        if (p === '*') node = { kind: 'rep', node, min: 0, max: null };
        else if (p === '+') node = { kind: 'rep', node, min: 1, max: null };
        else if (p === '?') node = { kind: 'rep', node, min: 0, max: 1 };
        else if (p === '{') {
          const m = /^\{\s*(\d+)\s*(,\s*(\d*)\s*)?\}/.exec(this.s.slice(this.i, this.i + 40));
          if (!m) this.fail('bad repetition');
          const min = Number(m[1]);
          const max = m[2] === undefined ? min : m[3] === '' ? null : Number(m[3]);
          if (max !== null && max < min) this.fail('repetition max below min');
          node = { kind: 'rep', node, min, max };
          this.i += m[0].length - 1;
        } else break;
        this.i++;
      }
      out.push(node);
    }
  }
}

function parseRules(text: string): Map<string, Node[][]> {
  const r = new Reader(text);
  const rules = new Map<string, Node[][]>();
  for (;;) {
    r.skip();
    if (r.i >= text.length) break;
    const n = r.name();
    if (n === null || !r.atRuleStart()) return r.fail('expected a rule');
    r.i += n.length;
    r.skip();
    r.i += 3; // ::=
    const alts = r.alternation(false);
    if (rules.has(n)) r.fail(`rule '${n}' defined twice`);
    rules.set(n, alts);
  }
  if (!rules.has('root')) throw new GrammarSyntaxError('grammar has no root rule');
  return rules;
}

// --- compiling to productions ----------------------------------------------------------------------------

export class Grammar {
  readonly prods: Production[] = [];
  readonly byLhs: number[][] = [];
  nullable: boolean[] = [];
  readonly root: number;
  /** One more than the longest right-hand side: the dot's range in an item's key. */
  readonly maxRhs: number;
  private readonly ids = new Map<string, number>();

  constructor(text: string) {
    const rules = parseRules(text);
    for (const name of rules.keys()) this.ids.set(name, this.fresh());
    for (const [name, alts] of rules) {
      const id = this.ids.get(name)!;
      for (const a of alts) this.add(id, this.seqSyms(a));
    }
    this.root = this.ids.get('root')!;
    this.computeNullable();
    this.maxRhs = this.prods.reduce((m, p) => Math.max(m, p.rhs.length), 0) + 1;
  }

  private fresh(): number {
    this.byLhs.push([]);
    return this.byLhs.length - 1;
  }

  private add(lhs: number, rhs: Sym[]): void {
    this.byLhs[lhs]!.push(this.prods.length);
    this.prods.push({ lhs, rhs });
  }

  // The symbols are appended to one array (`out`): a grammar is mostly long literals, and an array per node and
  // per sequence made the compile allocation-bound.
  private seqSyms(nodes: Node[], out: Sym[] = []): Sym[] {
    for (const n of nodes) this.syms(n, out);
    return out;
  }

  private asNt(n: Node): number {
    const s = this.syms(n, []);
    if (s.length === 1 && 'nt' in s[0]!) return s[0].nt;
    const id = this.fresh();
    this.add(id, s);
    return id;
  }

  private syms(n: Node, out: Sym[]): Sym[] {
    switch (n.kind) {
      case 'ref': {
        const id = this.ids.get(n.name);
        if (id === undefined) throw new GrammarSyntaxError(`undefined rule '${n.name}'`);
        out.push({ nt: id });
        return out;
      }
      case 'chars':
        for (const c of n.cps) out.push(charSym(c));
        return out;
      case 'class':
        out.push({ t: n.m });
        return out;
      case 'alt': {
        if (n.alts.length === 1) return this.seqSyms(n.alts[0]!, out);
        const id = this.fresh();
        for (const a of n.alts) this.add(id, this.seqSyms(a));
        out.push({ nt: id });
        return out;
      }
      case 'rep': {
        const x = this.asNt(n.node);
        for (let k = 0; k < n.min; k++) out.push({ nt: x });
        if (n.max === null) {
          // R ::= ε | R x (left recursion suits Earley)
          const r = this.fresh();
          this.add(r, []);
          this.add(r, [{ nt: r }, { nt: x }]);
          out.push({ nt: r });
        } else if (n.max > n.min) {
          // O_k ::= ε | x O_{k-1}
          let prev: number | null = null;
          for (let k = 0; k < n.max - n.min; k++) {
            const o = this.fresh();
            this.add(o, []);
            this.add(o, prev === null ? [{ nt: x }] : [{ nt: x }, { nt: prev }]);
            prev = o;
          }
          out.push({ nt: prev! });
        }
        return out;
      }
    }
  }

  private computeNullable(): void {
    const nullable = new Array<boolean>(this.byLhs.length).fill(false);
    for (let changed = true; changed; ) {
      changed = false;
      for (const p of this.prods) {
        if (nullable[p.lhs]) continue;
        if (p.rhs.every((s) => 'nt' in s && nullable[s.nt])) {
          nullable[p.lhs] = true;
          changed = true;
        }
      }
    }
    this.nullable = nullable;
  }
}

/**
 * The symbol of one literal code point, shared by every grammar: symbols are never changed, and literals are most
 * of a call grammar's symbols (one object per character made the compile allocation-bound).
 */
const charSyms = new Map<number, Sym>();
function charSym(c: number): Sym {
  let s = charSyms.get(c);
  if (!s) charSyms.set(c, (s = { t: { ranges: [[c, c]], negated: false } }));
  return s;
}

function matches(m: Matcher, cp: number): boolean {
  let hit = false;
  for (const [lo, hi] of m.ranges) {
    if (cp >= lo && cp <= hi) {
      hit = true;
      break;
    }
  }
  return hit !== m.negated;
}

const cache = new Map<string, Grammar>();

/** The compiled grammar for a grammar text (compiled once per text). */
export function compileGrammar(text: string): Grammar {
  let g = cache.get(text);
  if (!g) {
    g = new Grammar(text);
    if (cache.size > 256) cache.clear();
    cache.set(text, g);
  }
  return g;
}

/**
 * Earley recognition from `root`. Returns every end offset (in code units of `text`, relative to `start`) at
 * which a derivation of root that began at `start` ends; the whole rest of the text matches iff the last offset
 * equals `text.length - start`.
 */
export function rootEnds(grammar: Grammar | string, text: string, start = 0): number[] {
  const g = typeof grammar === 'string' ? compileGrammar(grammar) : grammar;
  const cps: number[] = [];
  const offs: number[] = [0]; // code-unit offset after each code point
  for (let i = start; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    cps.push(cp);
    i += cp > 0xffff ? 2 : 1;
    offs.push(i - start);
  }
  const n = cps.length;
  const width = n + 1;
  const maxRhs = g.maxRhs;
  // The items of each position as parallel arrays (production, dot, origin), made when the first item arrives: an
  // item per tuple made the recognizer allocation-bound, and a text refused early never reaches most positions.
  const P: Array<number[] | undefined> = new Array(width);
  const D: number[][] = new Array(width);
  const O: number[][] = new Array(width);
  const seen: Set<number>[] = new Array(width);
  // nonterminal → the indices of the items of that position waiting on it
  const waiting: Array<Map<number, number[]>> = new Array(width);
  const add = (i: number, p: number, d: number, o: number) => {
    const key = (p * maxRhs + d) * width + o;
    let s = seen[i];
    if (!s) {
      s = seen[i] = new Set();
      P[i] = [];
      D[i] = [];
      O[i] = [];
      waiting[i] = new Map();
    } else if (s.has(key)) return;
    s.add(key);
    const idx = P[i]!.push(p) - 1;
    D[i]!.push(d);
    O[i]!.push(o);
    const rhs = g.prods[p]!.rhs;
    if (d < rhs.length) {
      const sym = rhs[d]!;
      if ('nt' in sym) {
        const w = waiting[i]!.get(sym.nt);
        if (w) w.push(idx);
        else waiting[i]!.set(sym.nt, [idx]);
      }
    }
  };
  for (const p of g.byLhs[g.root]!) add(0, p, 0, 0);
  const ends: number[] = [];
  for (let i = 0; i <= n; i++) {
    const ps = P[i];
    if (!ps) break; // no item here: nothing can end at or after this position
    const ds = D[i]!;
    const os = O[i]!;
    let rootEnd = false;
    // the arrays grow while they are read: items added to this position are processed in this pass
    for (let k = 0; k < ps.length; k++) {
      const p = ps[k]!;
      const d = ds[k]!;
      const o = os[k]!;
      const prod = g.prods[p]!;
      if (d === prod.rhs.length) {
        if (o === 0 && prod.lhs === g.root) rootEnd = true;
        // complete: advance everything in set o that waited on this lhs
        const w = waiting[o]!.get(prod.lhs);
        if (w) {
          const wp = P[o]!;
          const wd = D[o]!;
          const wo = O[o]!;
          for (let j = 0; j < w.length; j++) {
            const x = w[j]!;
            add(i, wp[x]!, wd[x]! + 1, wo[x]!);
          }
        }
        continue;
      }
      const s = prod.rhs[d]!;
      if ('nt' in s) {
        for (const q of g.byLhs[s.nt]!) add(i, q, 0, i);
        if (g.nullable[s.nt]) add(i, p, d + 1, o);
      } else if (i < n && matches(s.t, cps[i]!)) add(i + 1, p, d + 1, o);
    }
    if (rootEnd) ends.push(offs[i]!);
  }
  return ends;
}

/** Whether all of `text` derives from the grammar's root. */
export function accepts(grammar: Grammar | string, text: string): boolean {
  const ends = rootEnds(grammar, text);
  return ends.length > 0 && ends[ends.length - 1] === text.length;
}

/**
 * llama.cpp lazy-grammar semantics: the output is free until the first trigger word; from the trigger on, the
 * rest of the output must derive from root. An output without a trigger is free text (the model declined).
 */
export function acceptsLazy(
  grammar: Grammar | string,
  triggers: readonly string[],
  text: string,
): { accepted: boolean; triggeredAt: number | null } {
  const at = firstTrigger(text, triggers);
  if (at === null) return { accepted: true, triggeredAt: null };
  const ends = rootEnds(grammar, text, at);
  return { accepted: ends.length > 0 && ends[ends.length - 1] === text.length - at, triggeredAt: at };
}

export function firstTrigger(text: string, triggers: readonly string[]): number | null {
  let best: number | null = null;
  for (const t of triggers) {
    if (!t) continue;
    const i = text.indexOf(t);
    if (i >= 0 && (best === null || i < best)) best = i;
  }
  return best;
}

/**
 * xgrammar "triggered tags" semantics (vLLM / SGLang structural tags): free text; wherever a trigger appears, one
 * of the tags whose begin starts there must follow — begin literal, content (its grammar), end literal — after
 * which the text is free again. `content` grammars are GBNF texts.
 */
export function acceptsTriggeredTags(
  tags: ReadonlyArray<{ begin: string; content: string; end: string }>,
  triggers: readonly string[],
  text: string,
): boolean {
  const memo = new Map<number, boolean>();
  const from = (pos: number): boolean => {
    const m = memo.get(pos);
    if (m !== undefined) return m;
    memo.set(pos, false);
    let at: number | null = null;
    for (const t of triggers) {
      const i = text.indexOf(t, pos);
      if (i >= 0 && (at === null || i < at)) at = i;
    }
    let ok = false;
    if (at === null) ok = true;
    else {
      for (const tag of tags) {
        if (!text.startsWith(tag.begin, at)) continue;
        const b = at + tag.begin.length;
        const ends = rootEnds(tag.content, text, b);
        for (let k = ends.length - 1; k >= 0 && !ok; k--) {
          const e = b + ends[k]!;
          if (text.startsWith(tag.end, e) && from(e + tag.end.length)) ok = true;
        }
        if (ok) break;
      }
    }
    memo.set(pos, ok);
    return ok;
  };
  return from(0);
}
