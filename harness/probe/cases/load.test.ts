import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataError } from '../../core/errors.ts';
import { fromRoot } from '../../core/paths.ts';
import { callId, dateSentence, loadCases } from './load.ts';
import { priorCalls } from './types.ts';

const FIXTURE = fromRoot('fixtures', 'probe', 'cases', 'toolhound-format', 'cases.jsonl');

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function tmpCases(lines: unknown[], tools?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tg-probe-cases-'));
  made.push(dir);
  if (tools !== undefined) writeFileSync(join(dir, 'tools.yaml'), tools);
  writeFileSync(
    join(dir, 'cases.jsonl'),
    lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n',
  );
  return join(dir, 'cases.jsonl');
}
const PALETTE =
  'f:\n  description: a tool\n  parameters: {type: object, properties: {x: {type: string}}, required: [x]}\n';
const good = {
  id: 'a_dev_000',
  cat: 'C1',
  split: 'dev',
  tools: ['f'],
  turns: [{ role: 'user', content: 'hi' }],
  expected: { tool: 'f', args: { x: '1' } },
  arg_rules: {},
};

function dataError(fn: () => unknown): DataError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DataError) return e;
    throw e;
  }
  throw new Error('expected a DataError');
}

describe('probe case loading', () => {
  it('reads the Toolhound format as is: palette beside the file, {tool,args}, tool_call turns, null expected, extras', () => {
    const l = loadCases(FIXTURE);
    expect(l.toolsFile).toMatch(/toolhound-format\/tools\.yaml$/);
    expect(l.cases.map((c) => c.id)).toEqual([
      'f_weather_dev_000',
      'f_meeting_dev_000',
      'f_carry_dev_000',
      'f_thanks_dev_000',
    ]);
    const [w, m, carry, thanks] = l.cases;
    expect(w!.tools[0]!.function).toMatchObject({ name: 'lookup_weather', description: 'Current weather for a city' });
    expect(w!.expected).toEqual([{ name: 'lookup_weather', arguments: { city: 'Ulm' } }]);
    expect(m!.rules.start).toEqual({ normalize: 'iso8601_minute' });
    expect(thanks!.expected).toBeNull();
    expect(thanks!.family).toBe('handwritten');
    // The prior call becomes an OpenAI assistant message with a 9-character id that the tool result answers.
    const [u1, a, t, u2] = carry!.messages;
    expect(u1).toEqual({ role: 'user', content: 'Weather in Ulm?' });
    expect(a!.tool_calls![0]!.id).toMatch(/^[a-z0-9]{9}$/);
    expect(a!.tool_calls![0]!.function).toEqual({ name: 'lookup_weather', arguments: '{"city":"Ulm"}' });
    expect(t).toMatchObject({ role: 'tool', content: 'Cloudy.', tool_call_id: a!.tool_calls![0]!.id });
    expect(u2!.content).toBe('Same in fahrenheit?');
    expect(priorCalls(carry!)).toEqual([{ index: 1, name: 'lookup_weather', arguments: { city: 'Ulm' } }]);
  });

  it('a reference date adds a system turn only to cases that compare datetimes', () => {
    const l = loadCases(FIXTURE, { dateContext: '2026-03-20' });
    const m = l.cases.find((c) => c.id === 'f_meeting_dev_000')!;
    expect(m.messages[0]).toEqual({ role: 'system', content: 'Today is Friday, 20 March 2026.' });
    expect(m.date).toBe('2026-03-20');
    expect(l.cases.find((c) => c.id === 'f_weather_dev_000')!.messages[0]!.role).toBe('user');
    expect(dateSentence('2026-01-15')).toBe('Today is Thursday, 15 January 2026.');
    expect(dateSentence('2026-03-06')).toBe('Today is Friday, 6 March 2026.');
  });

  it('a cases file or palette that cannot be read or parsed is one line naming the file', () => {
    const cases = tmpCases([good], 'f: {description: [\n');
    expect(dataError(() => loadCases(cases)).message).toMatch(/tools\.yaml: not valid YAML: /);
    const gone = join(cases, '..', 'gone.jsonl');
    expect(dataError(() => loadCases(gone)).message).toBe(`${gone}: cannot read the cases file (ENOENT)`);
  });

  it('call ids are deterministic 9-character alphanumerics', () => {
    expect(callId('x', 0)).toBe(callId('x', 0));
    expect(callId('x', 0)).not.toBe(callId('x', 1));
    for (let i = 0; i < 50; i++) expect(callId(`case_${i}`, i)).toMatch(/^[a-z0-9]{9}$/);
  });

  it('errors name the file, the line (and case id) and the field', () => {
    const unknownTool = dataError(() =>
      loadCases(tmpCases([good, { ...good, id: 'b_dev_000', tools: ['f', 'g'] }], PALETTE)),
    );
    expect(unknownTool.message).toMatch(/cases\.jsonl: row 2 \(b_dev_000\): field tools\[1\]: unknown tool 'g'/);
    const badRule = dataError(() => loadCases(tmpCases([{ ...good, arg_rules: { x: { match: 'regex' } } }], PALETTE)));
    expect(badRule.message).toMatch(/row 1 \(a_dev_000\): field arg_rules\.x\.match: /);
    const wrongTool = dataError(() => loadCases(tmpCases([{ ...good, expected: { tool: 'h', args: {} } }], PALETTE)));
    expect(wrongTool.message).toMatch(/field expected\.tool: 'h' is not among the case's tools/);
    const notJson = dataError(() => loadCases(tmpCases([good, '{oops'], PALETTE)));
    expect(notJson.message).toMatch(/cases\.jsonl: row 2: not a JSON object/);
    const dup = dataError(() => loadCases(tmpCases([good, good], PALETTE)));
    expect(dup.message).toMatch(/row 2 \(a_dev_000\): field id: duplicate id \(first on line 1\)/);
    const orphan = dataError(() =>
      loadCases(
        tmpCases(
          [
            {
              ...good,
              turns: [
                { role: 'user', content: 'q' },
                { role: 'tool', content: 'r' },
              ],
            },
          ],
          PALETTE,
        ),
      ),
    );
    expect(orphan.message).toMatch(/field turns\[1\]: a tool turn must follow an assistant tool call/);
    const last = dataError(() =>
      loadCases(
        tmpCases(
          [
            {
              ...good,
              turns: [
                { role: 'user', content: 'q' },
                { role: 'assistant', content: 'a' },
              ],
            },
          ],
          PALETTE,
        ),
      ),
    );
    expect(last.message).toMatch(/field turns\[1\]: the last turn must be a user/);
    const palette = dataError(() => loadCases(tmpCases([good], 'f: [1, 2]\n')));
    expect(palette.message).toMatch(/tools\.yaml: row f/);
    const noPalette = dataError(() => loadCases(tmpCases([good])));
    expect(noPalette.message).toMatch(/unknown tool 'f' \(not in the tool palette: none was loaded, pass --tools\)/);
  });

  it('inline OpenAI tools need no palette', () => {
    const inline = {
      ...good,
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
    };
    expect(loadCases(tmpCases([inline])).cases[0]!.tools[0]!.function.name).toBe('f');
  });
});
