// Loading BFCL's files (the fixtures' layout) and downloading them into the Hugging Face cache from a loopback
// imitation of the hub: what is fetched, where it lands, the offline reuse, and one-line errors for bad rows.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  answerSchema,
  answerShape,
  dataFile,
  leadingId,
  loadCategory,
  loadCategoryCases,
  categoryCaseReader,
  quickSingleTurnEntry,
  singleTurnEntrySchema,
} from './data.ts';
import { sameValue } from '../core/same-value.ts';
import { pyJsonLoads, pyToPlain } from '../core/pyliteral/pyjson.ts';
import { ALL_CATEGORIES } from './categories.ts';
import { BFCL_HF_REPO, ensureBfclData, filesFor } from './hf.ts';
import { FIXTURE_DATA, hasSharedData, SHARED_DATA } from './testkit.ts';

const COMMIT = 'b'.repeat(40);
let server: Server;
let endpoint: string;
const fetched: string[] = [];
const tmp: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const prefix = `/datasets/${BFCL_HF_REPO}/resolve/`;
    if (!req.url?.startsWith(prefix)) return void res.writeHead(404).end();
    const [rev, ...rest] = req.url.slice(prefix.length).split('/');
    const file = decodeURIComponent(rest.join('/'));
    if (rev !== 'main' && rev !== COMMIT) return void res.writeHead(404).end();
    fetched.push(file);
    let body: Buffer;
    try {
      body = readFileSync(join(FIXTURE_DATA, file));
    } catch {
      // The fixtures have the toy class's docs only; the other classes' doc files exist but are empty here.
      if (file.startsWith('multi_turn_func_doc/')) body = Buffer.from('');
      else return void res.writeHead(404).end();
    }
    res.writeHead(200, { 'x-repo-commit': COMMIT }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  tmp.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe('BFCL data', () => {
  it('downloads the files the categories need into the hub cache, then works offline from the cache', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-bfcl-hf-'));
    tmp.push(home);
    const got = await ensureBfclData(
      ['simple_python', 'irrelevance', 'multi_turn_base'],
      { hfHome: home, endpoint },
      {},
    );
    expect(got.commit).toBe(COMMIT);
    expect(relative(home, got.dir)).toBe(
      join('hub', `datasets--${BFCL_HF_REPO.replace('/', '--')}`, 'snapshots', COMMIT),
    );
    // Irrelevance has no possible answers; multi-turn needs the class docs.
    expect(filesFor(['irrelevance'])).toEqual(['BFCL_v4_irrelevance.json']);
    expect(fetched).toContain('multi_turn_func_doc/ticket_api.json');
    expect(loadCategory(got.dir, 'simple_python').map((c) => c.id)).toEqual([
      'simple_python_0',
      'simple_python_1',
      'simple_python_2',
    ]);
    const n = fetched.length;
    const again = await ensureBfclData(['simple_python'], { hfHome: home, endpoint: 'http://127.0.0.1:9' }, {});
    expect(again.dir).toBe(got.dir);
    expect(fetched.length).toBe(n);
    await expect(
      ensureBfclData(['parallel_multiple'], { hfHome: home, endpoint: 'http://127.0.0.1:9' }, {}),
    ).rejects.toThrow(/--data/);
  });

  /** A copy of the fixture data whose simple_python line 2 names its function with a number. */
  function dataWithBadRow(): { dir: string; file: string; lines: string[] } {
    const dir = mkdtempSync(join(tmpdir(), 'tg-bfcl-data-'));
    tmp.push(dir);
    cpSync(FIXTURE_DATA, dir, { recursive: true });
    const file = join(dir, 'BFCL_v4_simple_python.json');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    writeFileSync(
      file,
      [lines[0], lines[1]!.replace('"function": [{"name": "circle_area"', '"function": [{"name": 5'), lines[2]].join(
        '\n',
      ),
    );
    return { dir, file, lines };
  }

  it('names file, row and field for a bad row; pairs answers by line and refuses a count mismatch', () => {
    const { dir, file, lines } = dataWithBadRow();
    expect(() => loadCategory(dir, 'simple_python')).toThrow(
      /BFCL_v4_simple_python\.json: row simple_python_1: field function\[0\]\.name/,
    );
    writeFileSync(file, lines.slice(0, 2).join('\n'));
    expect(() => loadCategory(dir, 'simple_python')).toThrow(/3 possible answers for 2 entries/);
    expect(() => loadCategory(dir, 'multiple')).toThrow(/BFCL_v4_multiple\.json: file not found/);
  });

  it('keeps int and float literals of answers and initial configs apart', () => {
    const sp = loadCategory(FIXTURE_DATA, 'simple_python')[1]!;
    expect(JSON.stringify(sp.possibleAnswer, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))).toContain(
      '{"t":"float","v":5}',
    );
    const mt = loadCategory(FIXTURE_DATA, 'multi_turn_base')[0]!;
    expect(mt.entry.initialConfigJson).toBe('{"TicketAPI": {"tickets": [], "next_id": 1}}');
    expect(mt.entry.functions.map((f) => f.name)).toEqual(['create_ticket', 'close_ticket', 'get_ticket']);
  });

  it('reads a leading id without parsing only when it is the one JSON.parse reads', () => {
    const key = fc.constantFrom('id', 'question', 'function', 'i"d', 'x');
    const value = fc.oneof(fc.string(), fc.constantFrom('id', '"id"', 'a\\b', 'é'), fc.integer(), fc.constant(null));
    const line = fc
      .tuple(
        fc.array(fc.tuple(key, fc.oneof(value, fc.dictionary(key, value, { maxKeys: 2 }))), { maxLength: 4 }),
        fc.constantFrom(', ', ',', ' , '),
        fc.constantFrom(': ', ':', ' : '),
        fc.constantFrom('', ' ', '\t'),
      )
      // Written key by key (duplicate keys kept, as a file may hold them), with the separators varied.
      .map(
        ([pairs, comma, colon, lead]) =>
          `${lead}{${pairs.map(([k, v]) => `${JSON.stringify(k)}${colon}${JSON.stringify(v)}`).join(comma)}}`,
      );
    fc.assert(
      fc.property(line, (text) => {
        const id = leadingId(text);
        if (id !== undefined) expect(id).toBe(JSON.parse(text).id);
      }),
    );
    // BFCL's own lines are read without parsing.
    expect(leadingId('{"id": "live_multiple_7-3-2", "question": [[{"role": "user", "content": "hi"}]]}')).toBe(
      'live_multiple_7-3-2',
    );
    expect(leadingId('{"id": "a", "id": "b"}')).toBeUndefined();
    expect(leadingId('{"id": "a\\"b", "x": 1}')).toBeUndefined();
  });

  it('loads the wanted cases of a category exactly as loading it whole, with every id', () => {
    // Every category of the fixtures; of BFCL's full data, one of each kind (whole categories compare slowly).
    const runs = [
      ...ALL_CATEGORIES.map((category) => ({ dir: FIXTURE_DATA, category })),
      ...(hasSharedData()
        ? (['simple_javascript', 'live_relevance', 'multi_turn_miss_func'] as const).map((category) => ({
            dir: SHARED_DATA,
            category,
          }))
        : []),
    ];
    for (const { dir, category } of runs) {
      if (!existsSync(dataFile(dir, category))) continue;
      const all = loadCategory(dir, category);
      const ids = all.map((c) => c.id);
      fc.assert(
        fc.property(fc.subarray([...ids, 'no_such_id']), (wanted) => {
          const got = loadCategoryCases(dir, category, new Set(wanted));
          expect(got.ids).toEqual(ids);
          expect(got.cases).toEqual(all.filter((c) => wanted.includes(c.id)));
        }),
        { numRuns: 4 },
      );
    }
  });

  it('parses only the wanted lines: a broken line of another id is counted, a wanted one is refused', () => {
    const { dir, file, lines } = dataWithBadRow();
    const got = loadCategoryCases(dir, 'simple_python', new Set(['simple_python_0', 'simple_python_2']));
    expect(got.ids).toEqual(['simple_python_0', 'simple_python_1', 'simple_python_2']);
    expect(got.cases.map((c) => [c.id, c.answerRaw])).toEqual([
      ['simple_python_0', expect.stringContaining('"simple_python_0"')],
      ['simple_python_2', expect.stringContaining('"simple_python_2"')],
    ]);
    expect(() => loadCategoryCases(dir, 'simple_python', new Set(['simple_python_1']))).toThrow(
      /BFCL_v4_simple_python\.json: row simple_python_1: field function\[0\]\.name/,
    );
    // Ids are still checked for repeats on every line.
    writeFileSync(file, [lines[0], lines[1], lines[0]].join('\n'));
    expect(() => loadCategoryCases(dir, 'simple_python', new Set(['simple_python_1']))).toThrow(/duplicate id/);
  });

  it('reads a wanted case when asked, as loading the category whole does; a broken wanted line is refused then', () => {
    const { dir, file, lines } = dataWithBadRow();
    const reader = categoryCaseReader(dir, 'simple_python', new Set(['simple_python_0', 'simple_python_1']));
    expect(reader.ids).toEqual(['simple_python_0', 'simple_python_1', 'simple_python_2']);
    expect([0, 1, 2].map((k) => reader.has(`simple_python_${k}`))).toEqual([true, true, false]);
    writeFileSync(file, [lines[0], lines[1], lines[2]].join('\n'));
    const whole = loadCategory(dir, 'simple_python');
    expect(reader.read('simple_python_0')).toEqual(whole[0]);
    // The reader keeps the lines it read at first (the bad one), and refuses that one when it is read.
    expect(() => reader.read('simple_python_1')).toThrow(
      /BFCL_v4_simple_python\.json: row simple_python_1: field function\[0\]\.name/,
    );
    expect(() => reader.read('simple_python_2')).toThrow(/no case simple_python_2/);
    // Repeated ids are refused at once, whether or not the line is wanted.
    writeFileSync(file, [lines[0], lines[1], lines[0]].join('\n'));
    expect(() => categoryCaseReader(dir, 'simple_python', new Set(['simple_python_0']))).toThrow(/duplicate id/);
  });

  it("checks a possible-answer line's shape as the schema checks the whole line", () => {
    const field = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }));
    const line = fc.oneof(
      fc.record({ id: fc.oneof(fc.string(), field), ground_truth: field, other: field }, { requiredKeys: [] }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    fc.assert(
      fc.property(line, (v) => {
        const py = pyJsonLoads(JSON.stringify(v));
        const whole = answerSchema.safeParse(pyToPlain(py));
        const shape = answerSchema.safeParse(answerShape(py));
        expect(shape.success).toBe(whole.success);
        expect(shape.error?.issues).toEqual(whole.error?.issues);
      }),
    );
  });

  it('reads a single-turn entry as singleTurnEntrySchema does, or leaves it to zod', () => {
    // The oracle is zod itself: where the quick reading gives a value, zod accepts the entry and gives the same data
    // (keys in the same order, the same objects passed through); where zod refuses, the quick reading gives nothing.
    const agrees = (v: unknown) => {
      const quick = quickSingleTurnEntry(v);
      const zod = singleTurnEntrySchema.safeParse(v);
      if (quick === undefined) return !zod.success || 'fallback';
      return zod.success && sameValue(quick, zod.data) ? true : JSON.stringify({ quick, zod });
    };
    const dirs = [FIXTURE_DATA, ...(hasSharedData() ? [SHARED_DATA] : [])];
    const real: unknown[] = [];
    for (const dir of dirs)
      for (const category of ALL_CATEGORIES)
        if (!category.startsWith('multi_turn') && existsSync(dataFile(dir, category)))
          real.push(
            ...readFileSync(dataFile(dir, category), 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l)),
          );
    // Not vacuous: the fixtures alone hold 7 single-turn entries (a clone without ../shared/data has only them).
    expect(real.length).toBeGreaterThan(5);
    for (const v of real) expect(agrees(v)).toBe(true);
    // Damaged and reshaped entries: a field removed, replaced or added, at any of the objects zod rebuilds.
    const damage = fc.tuple(
      fc.constantFrom('entry', 'question', 'message', 'doc', 'parameters', 'properties', 'param', 'required'),
      fc.constantFrom('id', 'name', 'description', 'type', 'role', 'properties', 'required', '__proto__', 'x', '0'),
      fc.oneof(fc.constantFrom(undefined, null, '', 'a', 5, [], {}, ['a'], [5], { type: 5 }, 'DELETE')),
    );
    const withDamage = (entry: unknown, [where, key, value]: [string, string, unknown]): unknown => {
      const e = structuredClone(entry) as Record<string, unknown>;
      const doc = (e.function as Record<string, unknown>[] | undefined)?.[0];
      const params = doc?.parameters as Record<string, unknown> | undefined;
      const props = params?.properties as Record<string, unknown> | undefined;
      const target = {
        entry: e,
        question: e.question,
        message: (e.question as unknown[][] | undefined)?.[0]?.[0],
        doc,
        parameters: params,
        properties: props,
        param: props ? props[Object.keys(props)[0] ?? ''] : undefined,
        required: params?.required,
      }[where] as Record<string, unknown> | undefined;
      if (target && typeof target === 'object') {
        if (value === 'DELETE') delete target[key];
        else Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return e;
    };
    let fallbacks = 0;
    fc.assert(
      fc.property(fc.constantFrom(...real.slice(0, 300)), fc.array(damage, { maxLength: 3 }), (entry, damages) => {
        const v = damages.reduce(withDamage, entry);
        const got = agrees(v);
        if (got === 'fallback') fallbacks++;
        expect(got === true || got === 'fallback' ? true : got).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(fallbacks).toBeGreaterThan(0);
  });
});
