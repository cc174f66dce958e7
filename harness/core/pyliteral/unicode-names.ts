// Character-name lookup for `\N{...}` escapes, exactly as CPython 3.11's unicodedata `_getcode` does it with
// named sequences excluded: names and aliases case-insensitively (ASCII upper-casing), "CJK UNIFIED IDEOGRAPH-"
// and "HANGUL SYLLABLE " algorithmically and case-sensitively. The name table is generated from CPython's own
// unicodedata by gen_unicode_data.py and loaded lazily (it is only needed when a literal contains \N{).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { isUnifiedIdeograph } from './unicode.ts';
import { UNICODE_VERSION } from './unicode-tables.ts';

const DATA_URL = new URL(`./data/unicode-names-${UNICODE_VERSION}.txt.gz`, import.meta.url);

let table: Map<string, number> | undefined;

/** Thrown when the bundled name table cannot be read. */
export class NameTableUnavailable extends Error {
  override name = 'NameTableUnavailable';
}

function loadTable(): Map<string, number> {
  if (table) return table;
  let text: string;
  try {
    text = gunzipSync(readFileSync(DATA_URL)).toString('latin1');
  } catch (err) {
    throw new NameTableUnavailable(`cannot read ${DATA_URL.pathname}: ${(err as Error).message}`);
  }
  const m = new Map<string, number>();
  let cp = -1;
  let aliases = false;
  for (const line of text.split('\n')) {
    if (line === '' || (line.startsWith('#') && line !== '#aliases')) continue;
    if (line === '#aliases') {
      aliases = true;
      continue;
    }
    const k = line.indexOf(';');
    const head = line.slice(0, k);
    const name = line.slice(k + 1);
    if (aliases) {
      m.set(name, parseInt(head, 16));
    } else {
      cp += 1 + (head === '' ? 0 : parseInt(head, 10));
      m.set(name, cp);
    }
  }
  table = m;
  return m;
}

// Hangul syllable name parts (Unicode 3.12 jamo short names), as in CPython's hangul_syllables table.
const JAMO_L = ['G', 'GG', 'N', 'D', 'DD', 'R', 'M', 'B', 'BB', 'S', 'SS', '', 'J', 'JJ', 'C', 'K', 'T', 'P', 'H'];
const JAMO_V = [
  'A',
  'AE',
  'YA',
  'YAE',
  'EO',
  'E',
  'YEO',
  'YE',
  'O',
  'WA',
  'WAE',
  'OE',
  'YO',
  'U',
  'WEO',
  'WE',
  'WI',
  'YU',
  'EU',
  'YI',
  'I',
];
const JAMO_T = [
  '',
  'G',
  'GG',
  'GS',
  'N',
  'NJ',
  'NH',
  'D',
  'L',
  'LG',
  'LM',
  'LB',
  'LS',
  'LT',
  'LP',
  'LH',
  'M',
  'B',
  'BS',
  'S',
  'SS',
  'NG',
  'J',
  'C',
  'K',
  'T',
  'P',
  'H',
];

// CPython find_syllable: the longest entry that is a prefix of str (index -1 when none, not even "").
function findSyllable(str: string, list: string[]): { len: number; index: number } {
  let len = -1;
  let index = -1;
  list.forEach((s, i) => {
    if (s.length > len && str.startsWith(s)) {
      len = s.length;
      index = i;
    }
  });
  return { len: Math.max(len, 0), index };
}

/**
 * The code point `\N{name}` denotes, or undefined when CPython 3.11 rejects the name.
 * Throws NameTableUnavailable when the table is needed and missing.
 */
export function lookupCharName(name: string): number | undefined {
  if (name.startsWith('HANGUL SYLLABLE ')) {
    let rest = name.slice(16);
    const l = findSyllable(rest, JAMO_L);
    rest = rest.slice(l.len);
    const v = findSyllable(rest, JAMO_V);
    rest = rest.slice(v.len);
    const t = findSyllable(rest, JAMO_T);
    rest = rest.slice(t.len);
    if (l.index !== -1 && v.index !== -1 && t.index !== -1 && rest === '') {
      return 0xac00 + (l.index * JAMO_V.length + v.index) * JAMO_T.length + t.index;
    }
    return undefined;
  }
  if (name.startsWith('CJK UNIFIED IDEOGRAPH-')) {
    const hex = name.slice(22);
    if ((hex.length !== 4 && hex.length !== 5) || !/^[0-9A-F]+$/.test(hex)) return undefined;
    const cp = parseInt(hex, 16);
    return isUnifiedIdeograph(cp) ? cp : undefined;
  }
  // Names are ASCII; CPython upper-cases the query with Py_TOUPPER (ASCII only).
  if (!/^[\x00-\x7f]*$/.test(name)) return undefined;
  return loadTable().get(name.toUpperCase());
}
