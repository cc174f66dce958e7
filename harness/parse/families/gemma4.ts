/**
 * Gemma 4: `<|tool_call>call:NAME{key:value,…}<tool_call|>`, several calls concatenated.
 * Format as implemented by vLLM's gemma4 tool parser (vllm/tool_parsers/gemma4_tool_parser.py):
 *   - keys are bare (up to `:`), or wrapped in `<|"|>…<|"|>` (vLLM strips that wrapping);
 *   - strings are delimited by `<|"|>` on both sides, with no escaping (so a string cannot contain `<|"|>`);
 *   - other scalars are bare: `true`, `false`, `null`, numbers;
 *   - objects `{k:v,…}` and arrays `[v,…]` nest.
 * NAME is `[\w\-.]+` (vLLM's regex).
 *
 * Strict: exactly that grammar (whitespace between tokens tolerated); a bare word that is not a
 * literal or a number is refused. Lenient: bare words as strings, JSON-quoted strings, Python literals,
 * trailing commas, a missing `<tool_call|>` when the object is complete, a missing `call:` prefix.
 */
import { readJsonValue, setOwn } from '../jsonish.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall, withNotes } from '../types.ts';
import { onlyTrailer, skipWs } from '../util.ts';

const OPEN = '<|tool_call>';
const CLOSE = '<tool_call|>';
const Q = '<|"|>';
const MAX_DEPTH = 200;
const MAX_BARE = 4096;

class Fail {
  constructor(readonly truncated: boolean) {}
}

class GemmaReader {
  constructor(
    readonly s: string,
    public i: number,
    readonly ctx: ParseCtx,
  ) {}

  ws(): void {
    this.i = skipWs(this.s, this.i);
  }

  fail(): never {
    throw new Fail(this.i >= this.s.length);
  }

  quoted(): string {
    this.i += Q.length;
    const end = this.s.indexOf(Q, this.i);
    if (end < 0) throw new Fail(true);
    const v = this.s.slice(this.i, end);
    this.i = end + Q.length;
    return v;
  }

  object(depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH) throw new Fail(false);
    const s = this.s;
    if (s[this.i] !== '{') this.fail();
    this.i++;
    const out: Record<string, unknown> = {};
    let first = true;
    for (;;) {
      this.ws();
      if (this.i >= s.length) this.fail();
      if (s[this.i] === '}') {
        if (!first && !this.ctx.loose) this.fail(); // `{a:1,}`
        if (!first) this.ctx.notes.add('trailing commas');
        this.i++;
        return out;
      }
      let key: string;
      if (s.startsWith(Q, this.i)) key = this.quoted();
      else if (this.ctx.loose && (s[this.i] === '"' || s[this.i] === "'")) {
        const r = readJsonValue(s, this.i, 'loose', this.ctx.notes);
        if (!r.ok || typeof r.value !== 'string') throw new Fail(!r.ok && r.truncated);
        key = r.value;
        this.i = r.end;
      } else {
        const m = /[^\s:,{}[\]<>"']+/y;
        m.lastIndex = this.i;
        const km = m.exec(s);
        if (!km) this.fail();
        key = km[0];
        this.i += key.length;
      }
      this.ws();
      if (s[this.i] !== ':') this.fail();
      this.i++;
      setOwn(out, key, this.value(depth + 1, '}'));
      this.ws();
      if (s[this.i] === ',') {
        this.i++;
        first = false;
        continue;
      }
      if (s[this.i] === '}') {
        this.i++;
        return out;
      }
      this.fail();
    }
  }

  array(depth: number): unknown[] {
    if (depth > MAX_DEPTH) throw new Fail(false);
    const s = this.s;
    this.i++;
    const out: unknown[] = [];
    let first = true;
    for (;;) {
      this.ws();
      if (this.i >= s.length) this.fail();
      if (s[this.i] === ']') {
        if (!first && !this.ctx.loose) this.fail();
        if (!first) this.ctx.notes.add('trailing commas');
        this.i++;
        return out;
      }
      out.push(this.value(depth + 1, ']'));
      this.ws();
      if (s[this.i] === ',') {
        this.i++;
        first = false;
        continue;
      }
      if (s[this.i] === ']') {
        this.i++;
        return out;
      }
      this.fail();
    }
  }

  value(depth: number, closer: '}' | ']'): unknown {
    this.ws();
    const s = this.s;
    if (this.i >= s.length) this.fail();
    if (s.startsWith(Q, this.i)) return this.quoted();
    const c = s[this.i];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (this.ctx.loose && (c === '"' || c === "'")) {
      const r = readJsonValue(s, this.i, 'loose', this.ctx.notes);
      if (!r.ok) throw new Fail(r.truncated);
      this.ctx.notes.add('json strings in gemma call');
      this.i = r.end;
      return r.value;
    }
    // bare scalar up to the next separator (never across a marker: `<` ends it; bounded so repeated
    // unclosed calls stay linear)
    let j = this.i;
    const stop = Math.min(s.length, this.i + MAX_BARE);
    while (j < stop && s[j] !== ',' && s[j] !== closer && s[j] !== '<') j++;
    if (j >= s.length) throw new Fail(true);
    if (j >= stop) this.fail();
    const raw = s.slice(this.i, j).trim();
    if (raw === 'true' || raw === 'false') return this.take(j, raw === 'true');
    if (raw === 'null') return this.take(j, null);
    if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(raw)) {
      const n = Number(raw);
      if (Number.isFinite(n)) return this.take(j, n);
    }
    if (!this.ctx.loose || raw === '') this.fail();
    if (raw === 'True' || raw === 'False') {
      this.ctx.notes.add('python literals');
      return this.take(j, raw === 'True');
    }
    if (raw === 'None') {
      this.ctx.notes.add('python literals');
      return this.take(j, null);
    }
    if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(raw)) return this.take(j, Number(raw));
    this.ctx.notes.add('bare string values');
    return this.take(j, raw);
  }

  take(j: number, v: unknown): unknown {
    this.i = j;
    return v;
  }
}

export function parseGemma4(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const open = ctx.loose ? /<\|\s*tool_call\s*>/gi : /<\|tool_call>/g;
  let m: RegExpExecArray | null;
  while ((m = open.exec(text))) {
    res.attempted = true;
    if (m[0] !== OPEN) ctx.notes.add('sloppy markers');
    const start = m.index;
    let p = skipWs(text, start + m[0].length);
    const cm = ctx.loose ? /call\s*:\s*/iy : /call:/y;
    cm.lastIndex = p;
    const callM = cm.exec(text);
    if (callM) p += callM[0].length;
    else if (!ctx.loose) {
      res.ok = false;
      res.truncated ||= 'call:'.startsWith(text.slice(p));
      continue;
    } else ctx.notes.add('missing call: prefix');
    const nm = /[\w\-.]+/y;
    nm.lastIndex = p;
    const nameM = nm.exec(text);
    if (!nameM) {
      res.ok = false;
      res.truncated ||= p >= text.length;
      continue;
    }
    p += nameM[0].length;
    if (ctx.loose) p = skipWs(text, p);
    const local: ParseCtx = withNotes(ctx, new Set());
    const reader = new GemmaReader(text, p, local);
    let args: Record<string, unknown>;
    try {
      args = reader.object(0);
    } catch (err) {
      res.ok = false;
      if (err instanceof Fail && err.truncated) res.truncated = true;
      continue;
    }
    p = reader.i;
    const q = ctx.loose ? skipWs(text, p) : p;
    let end: number;
    if (text.startsWith(CLOSE, q)) end = q + CLOSE.length;
    else if (
      ctx.loose &&
      (q >= text.length || onlyTrailer(text, q) || /^<\|\s*tool_call\s*>/i.test(text.slice(q, q + 20)))
    ) {
      local.notes.add('missing closing tag');
      end = q;
    } else if (ctx.loose && /^<\s*\/?\s*tool_call\s*\|?\s*>/i.test(text.slice(q, q + 20))) {
      local.notes.add('sloppy markers');
      end = q + /^<\s*\/?\s*tool_call\s*\|?\s*>/i.exec(text.slice(q, q + 20))![0].length;
    } else {
      res.ok = false;
      continue;
    }
    for (const x of local.notes) ctx.notes.add(x);
    res.calls.push({ name: nameM[0], arguments: args, start, end });
    res.spans.push([start, end]);
    open.lastIndex = end;
  }
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

// --- rendering -------------------------------------------------------------------------------------------

function gemmaKey(k: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : `${Q}${k}${Q}`;
}

export function gemmaValue(v: unknown): string {
  if (typeof v === 'string') return `${Q}${v}${Q}`;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(gemmaValue).join(',')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${gemmaKey(k)}:${gemmaValue(x)}`)
    .join(',')}}`;
}

export function renderGemma4(calls: ParsedCall[]): string {
  return calls.map((c) => `${OPEN}call:${c.name}${gemmaValue(c.arguments)}${CLOSE}`).join('');
}
