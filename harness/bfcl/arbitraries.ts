// fast-check generators of model outputs for BFCL cases (test support): the gold calls of a case, mutated the ways
// models get calls wrong — a changed type (5 vs 5.0, "5", True), a changed string (case, spaces, punctuation), a
// missing or extra argument, another allowed value, reordered calls or arguments, a wrong or underscored function
// name, a dropped or repeated call — then written in one of the result formats, sometimes with the format itself
// damaged (prose around it, a code fence, positional arguments, a cut-off end, bad JSON).
import fc from 'fast-check';
import { floatRepr, pyRepr, type PyValue } from '../core/pyliteral/index.ts';
import { languageOf } from './categories.ts';
import type { BfclCase } from './data.ts';
import { argumentsJson, goldCallsOf, renderPythonic, type GoldCall } from './render.ts';
import { pyJsonDumps } from '../core/pyliteral/pyjson.ts';
import { plausibleCall } from './responder.ts';

const S = (v: string): PyValue => ({ t: 'str', v });

/** Ways to change one value. */
export function valueVariants(v: PyValue): PyValue[] {
  const out: PyValue[] = [];
  switch (v.t) {
    case 'int':
      out.push(
        { t: 'float', v: Number(v.v) },
        S(v.v.toString()),
        { t: 'int', v: v.v + 1n },
        { t: 'int', v: -v.v },
        { t: 'bool', v: v.v !== 0n },
      );
      break;
    case 'float':
      if (Number.isInteger(v.v)) out.push({ t: 'int', v: BigInt(v.v) });
      out.push(S(floatRepr(v.v)), { t: 'float', v: v.v + 0.5 }, { t: 'float', v: -v.v });
      break;
    case 'bool':
      out.push(
        { t: 'bool', v: !v.v },
        { t: 'int', v: v.v ? 1n : 0n },
        S(v.v ? 'true' : 'false'),
        S(v.v ? 'True' : 'False'),
      );
      break;
    case 'str':
      out.push(
        S(v.v.toUpperCase()),
        S(v.v.toLowerCase()),
        S(` ${v.v}`),
        S(v.v.replace(/ /g, '')),
        S(`${v.v}.`),
        S(v.v.replace(/ /g, '_')),
        S(v.v.replace(/ /g, '-')),
        S(`${v.v}!`),
        S(v.v.slice(0, -1)),
        S(`'${v.v}'`),
      );
      // Java/JavaScript source strings: suffixes, quotes and spacing the type converters care about.
      out.push(
        S(`${v.v}L`),
        S(`${v.v}f`),
        S(`${v.v}n`),
        S(v.v.replace(/[lLfFn]$/, '')),
        S(v.v.replace(/, /g, ',')),
        S(v.v.replace(/"/g, "'")),
        S(`"${v.v}"`),
        S(`${v.v}.0`),
      );
      if (/^-?\d+$/.test(v.v)) out.push({ t: 'int', v: BigInt(v.v) });
      if (/^-?\d+\.\d+$/.test(v.v)) out.push({ t: 'float', v: Number(v.v) });
      break;
    case 'list':
      out.push(
        { t: 'tuple', items: v.items },
        { t: 'list', items: [...v.items].reverse() },
        { t: 'list', items: v.items.slice(1) },
        { t: 'list', items: [...v.items, ...v.items.slice(0, 1)] },
      );
      if (v.items.length)
        out.push({ t: 'list', items: [valueVariants(v.items[0]!)[0] ?? v.items[0]!, ...v.items.slice(1)] });
      break;
    case 'dict':
      if (v.entries.length)
        out.push(
          { t: 'dict', entries: v.entries.slice(1) },
          {
            t: 'dict',
            entries: [[v.entries[0]![0], valueVariants(v.entries[0]![1])[0] ?? S('x')], ...v.entries.slice(1)],
          },
        );
      out.push({ t: 'dict', entries: [...v.entries, [S('extra_key'), S('x')]] });
      break;
    default:
      break;
  }
  out.push({ t: 'none' }, S(''));
  return out;
}

/** All allowed values of each parameter of a case's answer key (for "another allowed value"). */
function allowedValues(c: BfclCase): Array<{ call: number; param: string; values: PyValue[] }> {
  const pa = c.possibleAnswer;
  if (!pa || pa.t !== 'list') return [];
  return pa.items.flatMap((item, call) => {
    if (item.t !== 'dict' || !item.entries[0] || item.entries[0][1].t !== 'dict') return [];
    return item.entries[0][1].entries.flatMap(([k, allowed]) =>
      k.t === 'str' && allowed.t === 'list' ? [{ call, param: k.v, values: allowed.items }] : [],
    );
  });
}

type Mutation = (calls: GoldCall[], c: BfclCase, pick: number) => GoldCall[];

const at = <T>(xs: readonly T[], k: number): T | undefined => (xs.length ? xs[Math.abs(k) % xs.length] : undefined);

const MUTATIONS: Record<string, Mutation> = {
  changeValue(calls, _c, k) {
    const call = at(calls, k);
    const arg = call && at(call.args, k >> 3);
    if (!call || !arg) return calls;
    const variant = at(valueVariants(arg[1]), k >> 6) ?? arg[1];
    return calls.map((x) => (x === call ? { ...x, args: x.args.map((a) => (a === arg ? [a[0], variant] : a)) } : x));
  },
  otherAllowed(calls, c, k) {
    const slot = at(allowedValues(c), k);
    if (!slot) return calls;
    const value = at(slot.values, k >> 4);
    if (value === undefined) return calls;
    return calls.map((x, i) =>
      i !== slot.call
        ? x
        : {
            ...x,
            args: [
              ...x.args.filter(([p]) => p !== slot.param),
              ...(value.t === 'str' && value.v === '' ? [] : [[slot.param, value] as [string, PyValue]]),
            ],
          },
    );
  },
  dropArg(calls, _c, k) {
    const call = at(calls, k);
    if (!call || !call.args.length) return calls;
    const drop = Math.abs(k >> 3) % call.args.length;
    return calls.map((x) => (x === call ? { ...x, args: x.args.filter((_, i) => i !== drop) } : x));
  },
  extraArg(calls, c, k) {
    const call = at(calls, k);
    if (!call) return calls;
    const doc = c.entry.functions.find((f) => f.name === call.name);
    const unused = Object.keys(doc?.parameters.properties ?? {}).filter((p) => !call.args.some(([a]) => a === p));
    const name = at(unused, k >> 3) ?? 'unknown_param';
    return calls.map((x) =>
      x === call
        ? { ...x, args: [...x.args, [name, at([S('x'), { t: 'int', v: 1n }, { t: 'bool', v: true }], k >> 5)!]] }
        : x,
    );
  },
  reorderCalls(calls, _c, k) {
    if (calls.length < 2) return calls;
    const r = Math.abs(k) % calls.length;
    return [...calls.slice(r), ...calls.slice(0, r)].reverse();
  },
  reorderArgs(calls) {
    return calls.map((x) => ({ ...x, args: [...x.args].reverse() }));
  },
  renameFunction(calls, c, k) {
    const call = at(calls, k);
    if (!call) return calls;
    const names = [
      ...c.entry.functions.map((f) => f.name).filter((n) => n !== call.name),
      call.name.replace(/\./g, '_'),
      `${call.name}s`,
      call.name.toUpperCase(),
    ];
    const name = at(names, k >> 3)!;
    return calls.map((x) => (x === call ? { ...x, name } : x));
  },
  dropCall(calls, _c, k) {
    if (!calls.length) return calls;
    const i = Math.abs(k) % calls.length;
    return calls.filter((_, j) => j !== i);
  },
  repeatCall(calls, _c, k) {
    const call = at(calls, k);
    return call ? [...calls, call] : calls;
  },
  noCall() {
    return [];
  },
};

export const MUTATION_NAMES = Object.keys(MUTATIONS);

/** Render calls as BFCL's prompt text with a damage applied to the text. */
function pythonicText(calls: GoldCall[], damage: string, k: number): string {
  const base = renderPythonic(calls);
  switch (damage) {
    case 'fence':
      return `\`\`\`python\n${base}\n\`\`\``;
    case 'plainFence':
      return `\`\`\`\n${base}\n\`\`\``;
    case 'noBrackets':
      return base.slice(1, -1);
    case 'prose':
      return `Sure! Here is the call: ${base}`;
    case 'quoted':
      return `'${base}'`;
    case 'truncate':
      return base.slice(0, Math.max(1, base.length - 1 - (Math.abs(k) % Math.max(1, base.length - 1))));
    case 'positional':
      return `[${calls.map((c) => `${c.name}(${c.args.map(([, v]) => pyRepr(v)).join(', ')})`).join(', ')}]`;
    case 'doubleQuotes':
      return base.replace(/'/g, '"');
    case 'newlines':
      return `\n${base.replace(/, /g, ',\n  ')}\n`;
    case 'arith':
      return base.replace(/=(\d+)([,)])/, '=$1*1$2').replace(/=(\d+\.\d+)([,)])/, '=$1+0$2');
    case 'kwargs':
      return `[${calls.map((c) => `${c.name}(**${pyRepr({ t: 'dict', entries: c.args.map(([a, v]) => [S(a), v]) })})`).join(', ')}]`;
    case 'text':
      return at(
        [
          'I cannot help with that.',
          'None of the functions apply.',
          '[]',
          '',
          'None',
          '[None]',
          'get_weather',
          'Error: missing city',
          '[x]',
        ],
        k,
      )!;
    default:
      return base;
  }
}

function fcResult(calls: GoldCall[], damage: string, k: number): PyValue {
  const list = (items: PyValue[]): PyValue => ({ t: 'list', items });
  switch (damage) {
    case 'objectArgs':
      return list(
        calls.map((c) => ({
          t: 'dict',
          entries: [[S(c.name), { t: 'dict', entries: c.args.map(([a, v]) => [S(a), v]) }]],
        })),
      );
    case 'badJson':
      return list(
        calls.map((c, i) => ({
          t: 'dict',
          entries: [[S(c.name), S(i === 0 ? argumentsJson(c.args).slice(0, -1) : argumentsJson(c.args))]],
        })),
      );
    case 'jsFloats':
      // What JSON.stringify would send: 5.0 written as 5.
      return list(
        calls.map((c) => ({
          t: 'dict',
          entries: [
            [
              S(c.name),
              S(
                JSON.stringify(
                  Object.fromEntries(
                    c.args.map(([a, v]) => [a, JSON.parse(pyJsonDumps(v).replace(/NaN|-?Infinity/g, 'null'))]),
                  ),
                ),
              ),
            ],
          ],
        })),
      );
    case 'text':
      return S(at(['I cannot help with that.', 'Calling the tool now.', ''], k)!);
    case 'emptyArgs':
      return list(calls.map((c) => ({ t: 'dict', entries: [[S(c.name), S('')]] })));
    default:
      return list(calls.map((c) => ({ t: 'dict', entries: [[S(c.name), S(argumentsJson(c.args))]] })));
  }
}

function hermesText(calls: GoldCall[], damage: string, k: number): string {
  const block = (c: GoldCall) =>
    `<tool_call>\n{"name": ${JSON.stringify(c.name)}, "arguments": ${argumentsJson(c.args)}}\n</tool_call>`;
  switch (damage) {
    case 'noNewline':
      return calls.map((c) => block(c).replace(/\n/g, '')).join('');
    case 'prose':
      return `Let me do that.\n${calls.map(block).join('\n')}`;
    case 'badJson':
      return calls.map((c, i) => (i === 0 ? block(c).replace('}}', '}') : block(c))).join('\n');
    case 'stringArgs':
      return calls
        .map(
          (c) =>
            `<tool_call>\n{"name": ${JSON.stringify(c.name)}, "arguments": ${JSON.stringify(argumentsJson(c.args))}}\n</tool_call>`,
        )
        .join('\n');
    case 'text':
      return at(
        [
          'I cannot help with that.',
          '<tool_call>\n"oops"\n</tool_call>',
          '<tool_call>\n{"arguments": {}}\n</tool_call>',
        ],
        k,
      )!;
    default:
      return calls.map(block).join('\n');
  }
}

const DAMAGE = {
  pythonic: [
    'none',
    'none',
    'none',
    'fence',
    'plainFence',
    'noBrackets',
    'prose',
    'quoted',
    'truncate',
    'positional',
    'doubleQuotes',
    'newlines',
    'arith',
    'kwargs',
    'text',
  ],
  fc: ['none', 'none', 'none', 'objectArgs', 'badJson', 'jsFloats', 'text', 'emptyArgs'],
  hermes: ['none', 'none', 'none', 'noNewline', 'prose', 'badJson', 'stringArgs', 'text'],
} as const;

export type OutputFormat = keyof typeof DAMAGE;

export interface GeneratedOutput {
  format: OutputFormat;
  result: PyValue;
  /** What was done, for failure messages. */
  recipe: string;
}

/** Mutated outputs for one case in the formats that apply to it (prompt-mode Java/JavaScript is not decodable here). */
export function outputFor(
  c: BfclCase,
  formats: readonly OutputFormat[] = ['pythonic', 'fc', 'hermes'],
): fc.Arbitrary<GeneratedOutput> {
  const allowed = formats.filter((f) => f !== 'pythonic' || languageOf(c.category) === 'python');
  // Relevance cases have no answer key: start from a plausible call, which abstaining mutations then remove.
  const gold = c.possibleAnswer ? goldCallsOf(c) : plausibleCall(c.entry.functions);
  return fc
    .record({
      format: fc.constantFrom(...allowed),
      mutations: fc.array(fc.tuple(fc.constantFrom(...MUTATION_NAMES), fc.integer()), { maxLength: 3 }),
      damageIndex: fc.nat(),
      k: fc.integer(),
    })
    .map(({ format, mutations, damageIndex, k }) => {
      let calls = gold;
      for (const [name, pick] of mutations) calls = MUTATIONS[name]!(calls, c, pick);
      const damages = DAMAGE[format];
      const damage = damages[damageIndex % damages.length]!;
      const result: PyValue =
        format === 'pythonic'
          ? S(pythonicText(calls, damage, k))
          : format === 'fc'
            ? fcResult(calls, damage, k)
            : S(hermesText(calls, damage, k));
      return { format, result, recipe: `${format}/${damage} ${mutations.map(([m]) => m).join('+') || 'gold'}` };
    });
}
