import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../core/testkit.ts';
import { ToolhopRow } from './row.ts';
import { toolEntries, toolsPayload } from './tools.ts';

/** A JSON object text with these keys in this order (an object literal would treat `__proto__` specially). */
const objectText = (entries: Array<[string, unknown]>) =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;

function rowText(keys: string[], names: string[]): string {
  const tools = keys.map((k, i): [string, unknown] => [
    k,
    { name: names[i]!, description: '', parameters: { type: 'object', properties: {} } },
  ]);
  return `{"id":1,"question":"q","answer":"a","sub_task":${objectText(keys.map((k) => [k, 'x']))},"tools":${objectText(tools)},"functions":${JSON.stringify(names.map((n) => `def ${n}(): pass`))}}`;
}

describe('ToolHop row maps and tool names', () => {
  it('keeps every key of the sub-question maps, __proto__ and constructor included', () => {
    const key = fc.oneof(
      fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '0', 'a b'),
      fc.string({ minLength: 0, maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(key, { minLength: 1, maxLength: 6 }), (keys) => {
        const raw = JSON.parse(
          rowText(
            keys,
            keys.map((_, i) => `t${i}`),
          ),
        ) as Record<string, object>;
        const r = ToolhopRow.safeParse(raw);
        expect(r.success, r.success ? '' : r.error.message).toBe(true);
        if (!r.success) return;
        // The oracle: JSON.parse's own keys, in its order.
        expect(Object.keys(r.data.sub_task)).toEqual(Object.keys(raw.sub_task!));
        expect(Object.keys(r.data.tools)).toEqual(Object.keys(raw.tools!));
        expect(Object.getPrototypeOf(r.data.tools)).toBe(Object.prototype);
        expect(toolEntries(r.data).map((e) => e.subQuestion)).toEqual(Object.keys(raw.tools!));
      }),
      { numRuns: runs(200) },
    );
  });

  it('a row whose first hop is asked as "__proto__" is valid, with all its hops', () => {
    const r = ToolhopRow.parse(JSON.parse(rowText(['__proto__', 'b'], ['f', 'g'])));
    expect(Object.keys(r.tools)).toEqual(['__proto__', 'b']);
    // biome-ignore lint/suspicious/noProto: the test is that a key named __proto__ is kept as data
    expect(r.sub_task['__proto__']).toBe('x');
  });

  it('sends the model distinct names for tools f, f, f__0, each mapping back to its own hop', () => {
    const row = ToolhopRow.parse(JSON.parse(rowText(['a', 'b', 'c'], ['f', 'f', 'f__0'])));
    const names = toolsPayload(toolEntries(row)).map((t) => t.function.name);
    expect(new Set(names).size).toBe(3);
    expect(names[2]).toBe('f__0');
    expect(new Map(toolEntries(row).map((e) => [e.runtimeName, e.index])).size).toBe(3);
  });

  it('never sends two tools under one name, whatever the names (a unique name is kept)', () => {
    const name = fc.constantFrom('f', 'f__0', 'f__1', 'f__2', 'g', 'g__0', 'x'.repeat(64), `${'x'.repeat(61)}__0`);
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 6 }), (names) => {
        const row = ToolhopRow.parse(
          JSON.parse(
            rowText(
              names.map((_, i) => `q${i}`),
              names,
            ),
          ),
        );
        const sent = toolEntries(row).map((e) => e.runtimeName);
        expect(new Set(sent).size).toBe(names.length);
        sent.forEach((s, i) => {
          expect(s.length).toBeLessThanOrEqual(64);
          if (names.filter((n) => n === names[i]).length === 1) expect(s).toBe(names[i]);
        });
      }),
      { numRuns: runs(200) },
    );
  });
});
