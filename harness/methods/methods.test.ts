import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OpenAITool } from '../core/chat.ts';
import { editDistance, extractName, paTool, paToolRename, peakedness, selectName } from './pa-tool.ts';
import { originalCall, presentCall, presentMessages, presentTools, validRename, type RenameMap } from './rename.ts';
import { baseline, type Sampler } from './types.ts';

const ident = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/);

/** Tools with unique names and unique parameters, plus an injective rename of both namespaces. */
const renamedTools = fc
  .uniqueArray(fc.tuple(ident, fc.uniqueArray(ident, { maxLength: 5 })), {
    minLength: 1,
    maxLength: 5,
    selector: (t) => t[0],
  })
  .chain((spec) =>
    fc.tuple(
      fc.constant(spec),
      fc.uniqueArray(
        ident.map((s) => `t_${s}`),
        { minLength: spec.length, maxLength: spec.length },
      ),
      fc.tuple(
        ...spec.map(([, ps]) =>
          fc.uniqueArray(
            ident.map((s) => `p_${s}`),
            { minLength: ps.length, maxLength: ps.length },
          ),
        ),
      ),
    ),
  )
  .map(([spec, newTools, newParams]) => {
    const tools: OpenAITool[] = spec.map(([name, ps]) => ({
      type: 'function',
      function: {
        name,
        parameters: {
          type: 'object',
          properties: Object.fromEntries(ps.map((p) => [p, { type: 'string' }])),
          required: ps.slice(0, 1),
        },
      },
    }));
    const map: RenameMap = { tools: {}, params: {} };
    spec.forEach(([name, ps], i) => {
      map.tools[name] = newTools[i]!;
      map.params[name] = Object.fromEntries(ps.map((p, j) => [p, newParams[i]![j]!]));
    });
    return { tools, map, spec };
  });

describe('renaming and mapping back', () => {
  it('a call maps to the presented names and back, both ways (round trip)', () => {
    fc.assert(
      fc.property(renamedTools, fc.nat(), fc.string(), ({ tools, map, spec }, pick, value) => {
        expect(validRename(tools, map)).toEqual([]);
        const [name, ps] = spec[pick % spec.length]!;
        const call = { name, arguments: Object.fromEntries(ps.map((p) => [p, value])) };
        const shown = presentCall(call, map);
        expect(shown.name).toBe(map.tools[name]);
        expect(originalCall(shown, map)).toEqual(call);
        // and from the presented side: presented → original → presented
        expect(presentCall(originalCall(shown, map), map)).toEqual(shown);
      }),
      { numRuns: 200 },
    );
  });

  it('presented tools carry the presented names in name, properties and required; the schemas otherwise unchanged', () => {
    fc.assert(
      fc.property(renamedTools, ({ tools, map }) => {
        const shown = presentTools(tools, map);
        shown.forEach((t, i) => {
          const orig = tools[i]!.function;
          expect(t.function.name).toBe(map.tools[orig.name]);
          const op = orig.parameters as { properties: Record<string, unknown>; required: string[] };
          const sp = t.function.parameters as { properties: Record<string, unknown>; required: string[] };
          expect(Object.keys(sp.properties)).toEqual(Object.keys(op.properties).map((k) => map.params[orig.name]![k]));
          expect(sp.required).toEqual(op.required.map((k) => map.params[orig.name]![k]));
        });
      }),
    );
  });

  it('history: prior calls and tool messages are renamed; unmapped names pass through', () => {
    const map: RenameMap = { tools: { get_weather: 'weather_lookup' }, params: { get_weather: { location: 'city' } } };
    const msgs = presentMessages(
      [
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } },
          ],
        },
        { role: 'tool', content: '3C', name: 'get_weather', tool_call_id: 'a' },
      ],
      map,
    );
    expect(msgs[1]!.tool_calls![0]!.function).toEqual({ name: 'weather_lookup', arguments: '{"city":"Oslo"}' });
    expect(msgs[2]!.name).toBe('weather_lookup');
    expect(originalCall({ name: 'mystery', arguments: { z: 1 } }, map)).toEqual({
      name: 'mystery',
      arguments: { z: 1 },
    });
  });

  it('validRename finds collisions', () => {
    const tools: OpenAITool[] = [
      { type: 'function', function: { name: 'a', parameters: { type: 'object', properties: { x: {}, y: {} } } } },
      { type: 'function', function: { name: 'b' } },
    ];
    expect(validRename(tools, { tools: { a: 'b' }, params: {} })).toHaveLength(1);
    expect(validRename(tools, { tools: {}, params: { a: { x: 'y' } } })).toHaveLength(1);
  });
});

describe('PA-Tool', () => {
  it('edit distance and peakedness (hand-computed)', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    // max length 10 → τ = 2: get_weather/get_wether are 1 apart, fetch_temp is far from both
    expect(peakedness(['get_weathr', 'get_wether', 'fetch_temp'], 0.2)).toEqual([1, 1, 0]);
  });

  it('selects the name the samples concentrate on; ties go to the greedy answer', () => {
    expect(selectName(['weather', 'weather', 'forecast', 'weathr', 'climate'], 'climate')).toBe('weather');
    expect(selectName(['alpha', 'omega'], 'omegx')).toBe('omega');
    expect(selectName(['alpha', 'omega'], null)).toBe('alpha');
    expect(selectName([], 'x')).toBeNull();
  });

  it('reads a name from an answer and refuses non-names', () => {
    expect(extractName('`getWeather`')).toBe('get_weather');
    expect(extractName('fetch_forecast.')).toBe('fetch_forecast');
    expect(extractName('123')).toBeNull();
    expect(extractName('The')).toBeNull();
    expect(extractName('for')).toBeNull();
  });

  const tools: OpenAITool[] = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Get the current weather for a location.',
        parameters: {
          type: 'object',
          properties: { location: { type: 'string', description: 'City name' } },
          required: ['location'],
        },
      },
    },
    {
      type: 'function',
      function: {
        name: 'get_time',
        description: 'Get the local time in a timezone.',
        parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
      },
    },
  ];
  /** A model that, asked about weather, mostly says weather_now (with typos); about the city, mostly city. */
  const sampler = (calls: string[]): Sampler => ({
    async sample(prompt, { n, temperature }) {
      calls.push(`${temperature}`);
      const pool = prompt.includes('City name')
        ? ['city', 'city', 'citi', 'place']
        : prompt.includes('weather')
          ? ['weather_now', 'weather_now', 'weathr_now', 'get_weather']
          : prompt.includes('timezone')
            ? ['the', 'for']
            : ['clock_time', 'local_time'];
      return Array.from({ length: n }, (_, i) => (temperature === 0 ? pool[0]! : pool[i % pool.length]!));
    },
  });

  it('renames from the samples, keeps the original name when no usable candidate comes back', async () => {
    const asked: string[] = [];
    const { map } = await paToolRename(tools, sampler(asked), 7, { n: 8 });
    expect(map.tools.get_weather).toBe('weather_now');
    expect(map.params.get_weather).toEqual({ location: 'city' });
    expect(map.params.get_time).toBeUndefined(); // only junk ('the', 'for') for timezone
    expect(asked.filter((t) => t === '0')).toHaveLength(4); // one greedy reference per component
  });

  it('as a method: the request is presented renamed, calls map back, the adaptation is cached per tool set', async () => {
    const asked: string[] = [];
    const m = paTool({ n: 8 });
    const req = { tools, messages: [{ role: 'user' as const, content: 'Weather in Oslo?' }] };
    const p = await m.prepare(req, { sampler: sampler(asked), seed: 1 });
    // get_time's description mentions a timezone, so this sampler answers junk for it: the name stays
    expect(p.request.tools.map((t) => t.function.name)).toEqual(['weather_now', 'get_time']);
    expect(p.toOriginal({ name: 'weather_now', arguments: { city: 'Oslo' } })).toEqual({
      name: 'get_weather',
      arguments: { location: 'Oslo' },
    });
    const before = asked.length;
    await m.prepare(req, { sampler: sampler(asked), seed: 1 });
    expect(asked.length).toBe(before);
    await expect(m.prepare(req, { seed: 1 })).rejects.toThrow(/sampler/);
  });

  it('with token probabilities (a local engine): the most probable candidate wins, not the most sampled one', async () => {
    const scored: string[] = [];
    // the model finds get_weather (the current name, sampled once in four) far likelier than the sampled mode
    const lp: Record<string, number> = {
      weather_now: -4,
      weathr_now: -9,
      get_weather: -0.5,
      city: -2,
      citi: -6,
      place: -1,
      location: -3,
    };
    const scorer = { name: 'fake', logprob: async (_p: string, a: string) => (scored.push(a), lp[a] ?? -20) };
    const m = paTool({ n: 8 });
    const p = await m.prepare({ tools, messages: [] }, { sampler: sampler([]), seed: 1, scorer });
    expect(p.request.tools.map((t) => t.function.name)).toEqual(['get_weather', 'get_time']);
    expect(p.request.tools[0]!.function.parameters).toMatchObject({
      properties: { place: { type: 'string' } },
      required: ['place'],
    });
    expect(p.meta.selection).toMatch(/token probabilities/);
    // each distinct candidate scored once per component, the current name among them
    expect(scored.filter((a) => a === 'weather_now')).toHaveLength(1);
    expect(scored).toContain('location');
    // without a scorer the same samples give the peakedness choice
    const q = await paTool({ n: 8 }).prepare({ tools, messages: [] }, { sampler: sampler([]), seed: 1 });
    expect(q.request.tools[0]!.function.name).toBe('weather_now');
  });

  it('the baseline presents the request as is', async () => {
    const req = { tools, messages: [] };
    const p = await baseline.prepare(req, { seed: 0 });
    expect(p.request).toBe(req);
    expect(p.toOriginal({ name: 'x', arguments: {} })).toEqual({ name: 'x', arguments: {} });
  });
});
