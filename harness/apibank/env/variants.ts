// Predicted calls for the differential tests: from one task's gold call, the gold itself and deterministic
// perturbations of the kinds models produce — argument order and call spacing, wrong or re-cased names, missing,
// extra and unknown arguments, spacing/case/content changes of strings, numbers as strings and strings as numbers,
// other date formats, wrong types, and ToolSearcher keyword variants. Each case carries the call text the reference
// parses and the ApiCall it parses to (values normalised as its parser normalises them).
import { pyRepr, type PyValue } from '../../core/pyliteral/index.ts';
import { normalizeValue } from './normalize.ts';
import { normalizeParams } from './normalize.ts';
import type { ApiBankTask, ApiCall } from './index.ts';

export interface CallCase {
  label: string;
  text: string;
  call: ApiCall;
}

const S = (v: string): PyValue => ({ t: 'str', v });
const I = (v: number | bigint): PyValue => ({ t: 'int', v: BigInt(v) });
const F = (v: number): PyValue => ({ t: 'float', v });
const NONE: PyValue = { t: 'none' };

/** `[Name(k=repr(v), ...)]`, with optional spacing and bare-identifier values. */
export function callText(
  name: string,
  args: ReadonlyArray<readonly [string, PyValue | { bare: string }]>,
  spaced = false,
): string {
  const sep = spaced ? ' = ' : '=';
  const parts = args.map(([k, v]) => `${k}${sep}${'bare' in v ? v.bare : pyRepr(v)}`);
  return spaced ? `[${name}( ${parts.join(' ,  ')} )]` : `[${name}(${parts.join(', ')})]`;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/** Other spellings of a date or date-time value. */
function dateVariants(s: string): Array<[string, string]> {
  const m = DATE_TIME.exec(s);
  if (!m) return [];
  const [, y, mo, d, h, mi, se] = m;
  const out: Array<[string, string]> = [
    ['slashes', s.replaceAll('-', '/')],
    ['short-year', s.slice(2)],
    ['unpadded', `${Number(y)}-${Number(mo)}-${Number(d)}${h ? ` ${Number(h)}:${mi}:${se}` : ''}`],
    ['next-day', `${y}-${mo}-${String(Math.min(Number(d) + 1, 28)).padStart(2, '0')}${h ? ` ${h}:${mi}:${se}` : ''}`],
    ['trailing-space', `${s} `],
    ['bad-month', `${y}-13-${d}${h ? ` ${h}:${mi}:${se}` : ''}`],
    ['feb-30', `${y}-02-30${h ? ` ${h}:${mi}:${se}` : ''}`],
  ];
  if (h) {
    out.push(
      ['iso-T', `${y}-${mo}-${d}T${h}:${mi}:${se}`],
      ['no-seconds', `${y}-${mo}-${d} ${h}:${mi}`],
      ['date-only', `${y}-${mo}-${d}`],
    );
    out.push(['double-space', `${y}-${mo}-${d}  ${h}:${mi}:${se}`], ['second-60', `${y}-${mo}-${d} ${h}:${mi}:60`]);
  } else out.push(['with-time', `${s} 00:00:00`], ['month-day', `${mo}-${d}`]);
  return out;
}

/** Replacement values for one argument, by its gold value's type. */
function valueVariants(v: PyValue): Array<[string, PyValue]> {
  switch (v.t) {
    case 'str': {
      const s = v.v;
      const words = s.split(' ');
      const out: Array<[string, PyValue]> = [
        ['padded', S(` ${s} `)],
        ['upper', S(s.toUpperCase())],
        ['lower', S(s.toLowerCase())],
        ['UNKNOWN', S('UNKNOWN')],
        ['empty', S('')],
        ['none', NONE],
        ['int', I(5)],
        ['in-list', { t: 'list', items: [v] }],
        ['accented', S(`${s}é`)],
        ['sharp-s-upper', S(`${s}ß`.toUpperCase())],
        ['tab-newline', S(`\t${s}\n`)],
        ['float', F(2.5)],
        ['true', { t: 'bool', v: true }],
        ['dict', { t: 'dict', entries: [[S('name'), v]] }],
      ];
      if (words.length > 1) {
        out.push(
          ['drop-last-word', S(words.slice(0, -1).join(' '))],
          ['first-word', S(words[0]!)],
          ['double-spaces', S(words.join('  '))],
        );
        out.push(['extra-word', S(`${s} today`)]);
      }
      if (/^-?\d+$/.test(s)) out.push(['as-int', I(BigInt(s))]);
      if (/^-?\d+\.\d+$/.test(s)) out.push(['as-float', F(Number(s))]);
      for (const [k, d] of dateVariants(s)) out.push([`date:${k}`, S(d)]);
      return out;
    }
    case 'int':
      return [
        ['as-str', S(String(v.v))],
        ['plus-one', I(v.v + 1n)],
        ['as-float', F(Number(v.v))],
        ['half', F(Number(v.v) + 0.5)],
        ['true', { t: 'bool', v: true }],
        ['str-float', S(`${v.v}.5`)],
        ['str-spaced', S(` ${v.v} `)],
        ['none', NONE],
        ['word', S('two')],
        ['str-float-zero', S(`${v.v}.0`)],
        ['negative', I(-v.v - 1n)],
        ['underscored', S(`1_${v.v}`)],
        ['list', { t: 'list', items: [v] }],
      ];
    case 'float':
      return [
        ['as-str', S(String(v.v))],
        ['as-int', I(Math.trunc(v.v))],
        ['plus-one', F(v.v + 1)],
        ['none', NONE],
        ['word', S('warm')],
        ['str-exp', S('1e1')],
        ['str-inf', S('inf')],
        ['negative', F(-v.v)],
        ['bool', { t: 'bool', v: true }],
      ];
    case 'bool':
      return [
        ['str', S(v.v ? 'True' : 'False')],
        ['lower-str', S(v.v ? 'true' : 'false')],
        ['int', I(v.v ? 1 : 0)],
        ['flipped', { t: 'bool', v: !v.v }],
      ];
    case 'list':
      return [
        ['empty', { t: 'list', items: [] }],
        ['reversed', { t: 'list', items: [...v.items].reverse() }],
        ['first', { t: 'list', items: v.items.slice(0, 1) }],
        ['repr-str', S(pyRepr(v))],
        ['tuple', { t: 'tuple', items: v.items }],
        ['none', NONE],
        ['str', S('x')],
        ['with-none', { t: 'list', items: [...v.items, NONE] }],
        ['strs', { t: 'list', items: [S('a'), S('b')] }],
        ['upper-dicts', { t: 'list', items: v.items.map(upperNames) }],
        ['no-value', { t: 'list', items: v.items.map(dropKey('value')) }],
        ['doubled', { t: 'list', items: [...v.items, ...v.items] }],
      ];
    case 'dict':
      return [
        ['empty', { t: 'dict', entries: [] }],
        ['repr-str', S(pyRepr(v))],
        ['none', NONE],
      ];
    default:
      return [['none', NONE]];
  }
}

/** A dict's 'name' value upper-cased (devices, health items); other values unchanged. */
function upperNames(x: PyValue): PyValue {
  if (x.t !== 'dict') return x;
  return {
    t: 'dict',
    entries: x.entries.map(([k, v]) => [
      k,
      k.t === 'str' && k.v === 'name' && v.t === 'str' ? S(` ${v.v.toUpperCase()}`) : v,
    ]),
  };
}
const dropKey =
  (key: string) =>
  (x: PyValue): PyValue =>
    x.t === 'dict' ? { t: 'dict', entries: x.entries.filter(([k]) => !(k.t === 'str' && k.v === key)) } : x;

/** Calculator inputs, none with a '-' first in a parenthesised group (the reference loops forever on those). */
const FORMULAS = [
  '(1+2)*3',
  '1/0',
  '((1+2))',
  '2*(3+4)',
  '1++2',
  '(1)+',
  '10/4',
  '7-2-1',
  '2*3-4/8',
  '1 + 2',
  '(1+2',
  '12',
  'a+b',
  '3*(2+(4-1))',
  '2**3',
  '',
];

const KEYWORD_PHRASES = ['add a new schedule', 'check the weather', 'token', 'book hotel room', 'xyzzy'];

/**
 * Every case for one task. `otherKeywords`: recorded ToolSearcher keywords of the level (cache hits that are not
 * this task's). The gold call is first.
 */
export function callCases(task: ApiBankTask, otherKeywords: readonly string[] = []): CallCase[] {
  const name = task.ground_truth.api_name;
  // The gold call as the reference writes it (repr of normalised params) and parses it back (normalised again).
  const gold = normalizeParams(task.ground_truth.param_dict).map(
    ([k, v]) => [k, normalizeValue(v)] as [string, PyValue],
  );
  const cases: CallCase[] = [];
  const add = (label: string, n: string, args: Array<[string, PyValue]>, spaced = false): void => {
    cases.push({
      label,
      text: callText(n, args, spaced),
      call: { name: n, args: Object.fromEntries(args.map(([k, v]) => [k, normalizeValue(v)])) },
    });
  };
  add('gold', name, gold);
  add('reordered', name, [...gold].reverse());
  add('spaced', name, gold, true);
  add('lower-name', name.toLowerCase(), gold);
  const other = task.api_names.find((n) => n !== name && n !== 'ToolSearcher');
  if (other) add('other-name', other, gold);
  add('extra-note', name, [...gold, ['note', S('x')]]);
  add('no-args', name, []);
  gold.forEach(([k], i) =>
    add(
      `missing:${k}`,
      name,
      gold.filter((_, j) => j !== i),
    ),
  );
  gold.forEach(([k, v], i) => {
    for (const [label, nv] of valueVariants(v)) {
      add(
        `${k}:${label}`,
        name,
        gold.map(([kk, vv], j) => [kk, j === i ? nv : vv] as [string, PyValue]),
      );
    }
    if (v.t === 'str' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v.v) && !['True', 'False', 'None'].includes(v.v)) {
      // A bare identifier parses to its own name: token=abc means 'abc'.
      const args = gold.map(([kk, vv]) => [kk, kk === k ? { bare: v.v } : vv] as [string, PyValue | { bare: string }]);
      cases.push({
        label: `${k}:bare-name`,
        text: callText(name, args),
        call: { name, args: Object.fromEntries(gold) },
      });
    }
  });
  if (gold.length > 0)
    add(
      'renamed-arg',
      name,
      gold.map(([k, v], j) => [j === 0 ? `${k}_x` : k, v] as [string, PyValue]),
    );
  if (name === 'ToolSearcher') {
    for (const [i, kw] of otherKeywords.entries()) add(`keywords:recorded-${i}`, name, [['keywords', S(kw)]]);
    for (const [i, kw] of KEYWORD_PHRASES.entries()) add(`keywords:phrase-${i}`, name, [['keywords', S(kw)]]);
    const kw = gold.find(([k]) => k === 'keywords')?.[1];
    if (kw?.t === 'str') {
      add('keywords:shouted-spaced', name, [['keywords', S(`\t ${kw.v.toUpperCase().split(' ').join('   ')}\n`)]]);
      add('keywords:in-list', name, [['keywords', { t: 'list', items: [kw] }]]);
    }
    add('keywords:none', name, [['keywords', NONE]]);
    add('keywords:zero', name, [['keywords', I(0)]]);
  }
  if (name === 'Calculator') for (const [i, f] of FORMULAS.entries()) add(`formula:${i}`, name, [['formula', S(f)]]);
  return cases;
}
