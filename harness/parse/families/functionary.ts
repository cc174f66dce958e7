/**
 * Functionary.
 *   v3.2: segments `>>>RECIPIENT\nCONTENT`; RECIPIENT `all` means CONTENT is prose (up to the next `>>>`),
 *         any other recipient is a function name and CONTENT its JSON arguments. The template concatenates
 *         segments with nothing between them (`>>>f\n{…}>>>g\n{…}`).
 *         The generation prompt already ends with `>>>`, so raw completions output starts without it: when the
 *         caller names the family (`format: 'functionary'`) a missing leading `>>>` is implied — an
 *         identifier line followed by a JSON object is then a call, anything else prose.
 *   v3.1: `<function=NAME>{json}</function>`, prose around allowed.
 *
 * Strict: exactly that. Lenient: spaces around the recipient, prose before the first `>>>`, loose JSON,
 * `<function = NAME>`, a missing `</function>` once the JSON is complete.
 * Not handled: the `python` code-interpreter recipient (`>>>python\ncode`, `<|python_tag|>code`).
 */
import { looseCalls } from '../normalize.ts';
import { isPlainObject } from '../jsonish.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { located, onlyTrailer, readValueAt, skipWs, stripEndTokens } from '../util.ts';

const NAME = /^[A-Za-z_][\w.-]*$/;

function argsOf(v: unknown, name: string, ctx: ParseCtx): ParsedCall[] | null {
  if (isPlainObject(v)) return [{ name, arguments: v }];
  if (ctx.loose && typeof v === 'string') return looseCalls({ name, arguments: v }, ctx, { inMarker: true });
  return null;
}

/**
 * Under `auto`, a v3.2 output whose first `>>>` sat in the prompt is recognised when it cannot be prose: a later
 * `>>>NAME` segment follows, or the first line names a listed tool and a JSON object follows it.
 */
function impliedPrefix(body: string, p: number, ctx: ParseCtx): boolean {
  const m = /^([A-Za-z_][\w.-]*)[ \t]*\r?\n[ \t]*\{/.exec(body.slice(p, p + 200));
  if (!m || m[1] === 'all') return false;
  if (/(?:^|[}\n])[ \t]*>>>[ \t]*[A-Za-z_][\w.-]*[ \t]*\r?\n/.test(body.slice(p + m[0].length))) return true;
  return ctx.tools?.some((t) => t.name === m[1]) === true;
}

function parseV32(text: string, ctx: ParseCtx, res: FamilyResult): void {
  const body = stripEndTokens(text);
  let p = skipWs(body, 0);
  if (ctx.loose) {
    const first = /(^|\n)[ \t]*>>>/.exec(body);
    if (!first) return;
    const at = first.index + first[0].length - 3;
    if (body.slice(0, at).trim() !== '') ctx.notes.add('prose before call');
    p = at;
  } else if (!body.startsWith('>>>', p) && !ctx.explicit && !impliedPrefix(body, p, ctx)) return;
  let implicit = !body.startsWith('>>>', p);
  const spans: Array<[number, number]> = [];
  const frame: Array<[number, number]> = [];
  for (;;) {
    if (p >= body.length) break;
    const segStart = p;
    if (body.startsWith('>>>', p)) {
      p += 3;
      implicit = false;
    } else if (!implicit) {
      res.ok = false;
      break;
    }
    const nl = body.indexOf('\n', p);
    const line = nl < 0 ? body.slice(p) : body.slice(p, nl);
    const recipient = ctx.loose ? line.trim().replace(/:$/, '') : line.replace(/\r$/, '');
    if (recipient === 'all') {
      // prose: the `>>>all` header is markup, the text up to the next `>>>` is content
      frame.push([segStart, nl < 0 ? body.length : nl + 1]);
      const next = body.indexOf('>>>', p);
      p = next < 0 ? body.length : next;
      implicit = false;
      continue;
    }
    if (!NAME.test(recipient)) {
      if (implicit) return; // plain prose, no call
      res.attempted = true;
      res.ok = false;
      res.truncated ||= nl < 0;
      break;
    }
    if (nl < 0) {
      if (!implicit) {
        res.attempted = true;
        res.ok = false;
        res.truncated = true;
      }
      break;
    }
    const q = skipWs(body, nl + 1);
    if (implicit && body[q] !== '{' && !(ctx.loose && body[q] === "'")) return; // prose that starts with a word
    res.attempted = true;
    const r = readValueAt(body, q, ctx);
    if (!r.ok) {
      res.ok = false;
      res.truncated ||= r.truncated;
      break;
    }
    const calls = argsOf(r.value, recipient, ctx);
    if (!calls) {
      res.ok = false;
      break;
    }
    for (const c of calls) res.calls.push(located(c, segStart, r.end));
    spans.push([segStart, r.end]);
    p = skipWs(body, r.end);
    implicit = false;
    if (p < body.length && !body.startsWith('>>>', p)) {
      if (ctx.loose) {
        ctx.notes.add('text after call');
        break;
      }
      res.ok = false;
      break;
    }
  }
  if (res.calls.length > 0) {
    res.spans.push(...spans);
    res.frame = [...(res.frame ?? []), ...frame];
  }
}

function parseV31(text: string, ctx: ParseCtx, res: FamilyResult): void {
  const open = ctx.loose ? /<\s*function\s*=\s*["']?([\w.-]+)["']?\s*>/gi : /<function=([A-Za-z_][\w.-]*)>/g;
  let m: RegExpExecArray | null;
  while ((m = open.exec(text))) {
    const start = m.index;
    const p = skipWs(text, start + m[0].length);
    if (text[p] !== '{' && !(ctx.loose && text[p] === "'")) continue; // a qwen3_xml block
    res.attempted = true;
    const r = readValueAt(text, p, ctx);
    if (!r.ok) {
      res.ok = false;
      res.truncated ||= r.truncated;
      continue;
    }
    const calls = argsOf(r.value, m[1]!, ctx);
    if (!calls) {
      res.ok = false;
      continue;
    }
    const q = skipWs(text, r.end);
    const close = ctx.loose ? /<\s*\/\s*function\s*>/iy : /<\/function>/y;
    close.lastIndex = q;
    const cm = close.exec(text);
    let end: number;
    if (cm) end = q + cm[0].length;
    else if (ctx.loose) {
      ctx.notes.add('missing closing tag');
      end = onlyTrailer(text, q) ? text.length : q;
    } else {
      res.ok = false;
      continue;
    }
    for (const c of calls) res.calls.push(located(c, start, end));
    res.spans.push([start, end]);
    open.lastIndex = end;
  }
}

export function parseFunctionary(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  parseV32(text, ctx, res);
  if (res.calls.length === 0 && res.ok) parseV31(text, ctx, res);
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

export function renderFunctionary(calls: ParsedCall[]): string {
  return calls.map((c) => `>>>${c.name}\n${JSON.stringify(c.arguments)}`).join('');
}
