// fast-check generators of model replies to an API-Bank prompt: calls with quoting, spacing and value variants,
// prose and code fences around them, several calls, broken calls, no call.
import fc from 'fast-check';
import { PY_KEYWORDS } from '../core/pyliteral/keywords.ts';

const ident = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/).filter((s) => !PY_KEYWORDS.has(s));
const word = fc.constantFrom(
  '2023-03-31 10:00:00',
  'UNKNOWN',
  'John',
  "O'Brien",
  'a "quoted" word',
  'x\\y',
  'meeting room',
  '[1, 2]',
  '{"a": 1}',
  '(3,)',
  '[oops',
  '',
  'é',
  'line\nbreak',
  ')]',
  '[A(b=1)]',
);
const quoted = word.chain((w) =>
  fc.constantFrom(
    `'${w.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`,
    `"${w.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
    `'${w}'`,
  ),
);
const value: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { weight: 4, arbitrary: quoted },
    { weight: 2, arbitrary: fc.integer({ min: -1000, max: 100000 }).map(String) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '1.5',
        '2.0',
        '-3e2',
        '0x1F',
        '1_000',
        'True',
        'False',
        'None',
        'null',
        'true',
        'abc',
        'UNKNOWN',
        '1+2j',
        '-1',
        '+5',
        'f"x"',
        'b"x"',
        '...',
        'set()',
        'x.y',
        'f(1)',
        '[]',
        '{}',
        '()',
        "{'a': [1, (2, 3)]}",
        '{1: 2, 1: 3}',
        '[1,]',
        '{[1]: 2}',
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '1 # note\n',
        "'''tri ple'''",
        'r"\\d+"',
        "'a' 'b'",
        '(1)',
        '((2, 3))',
        '1e400',
        '-0.0',
        '0o17',
        '1j',
        '-(1)',
        'not True',
        '1 if x else 2',
        'lambda: 1',
        '(y := 2)',
        "u'x'",
        "'\\u00e9'",
        "'\\N{BULLET}'",
        '{**d}',
        '[*a]',
        '{1, 1}',
        'añadir',
        '\\\n 5',
        "'x'[0]",
        '0b11',
        '00',
        '1__0',
        '.5',
        '5.',
        "'unterminated",
        '"a\\"b"',
      ),
    },
    { weight: 1, arbitrary: fc.array(tie('v'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(quoted, tie('v')), { maxLength: 2 })
        .map((xs) => `{${xs.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
    },
  ),
})).v;
const space = fc.constantFrom('', ' ', '  ', '\n', '\t');
const arg = fc.tuple(ident, space, space, value).map(([k, s1, s2, v]) => `${k}${s1}=${s2}${v}`);
export const apiName = fc.oneof(
  fc.constantFrom(
    'AddAgenda',
    'GetUserToken',
    'ToolSearcher',
    'QueryMeeting',
    'addAgenda',
    'Add_Agenda2',
    'Añadir',
    'Get日本',
    'A١',
  ),
  ident,
);

/** One bracketed call, sometimes broken (positional, **kw, unbalanced, missing brackets). */
export const callText = fc
  .tuple(apiName, fc.array(arg, { maxLength: 4 }), space, fc.constantFrom(', ', ',', ' , ', ',\n'), fc.nat({ max: 9 }))
  .map(([name, args, sp, sep, variant]) => {
    const body = args.join(sep);
    switch (variant) {
      case 0:
        return `[${name}(${body}, 'positional')]`;
      case 1:
        return `[${name}(**kw)]`;
      case 2:
        return `[${name}(${body})`;
      case 3:
        return `${name}(${body})`;
      case 4:
        return `[${name} (${body})]`;
      case 5:
        return `[${name}(${sp}${body}${sp})]`;
      case 6:
        return `[${name}(${body}${body ? ',' : ''})]`;
      default:
        return `[${name}(${body})]`;
    }
  });

const prose = fc.constantFrom(
  '',
  'Sure! ',
  '[',
  ']',
  '(',
  "'",
  '"',
  '\\',
  '[[',
  '```\n[',
  ']\n```',
  'The next call is:\n',
  'Thinking [step 1] (draft)... ',
  "I'll call it: ",
  'Use ```python\n',
  '\n```',
  ' Done.',
  ' [note]',
  " it's fine",
  '`',
  'API-Request: ',
);

/** A whole reply: prose and calls in any mix, or no call at all. */
export const reply = fc
  .array(fc.oneof({ weight: 3, arbitrary: callText }, { weight: 2, arbitrary: prose }), { maxLength: 5 })
  .map((parts) => parts.join(''));
