// `npx tsx bench/bfcl/agreement.ts [--per-category N]`: the figures of docs/bfcl.md, on ../shared/data/bfcl.
//   1. The oracle (the first allowed value of each answer-key parameter) in every category and format, checked by
//      toolgauge and by BFCL's own Python: agreement, and the answer keys no output can pass.
//   2. Generated outputs (mutated gold calls, arbitraries.ts) per category: agreement with BFCL's checker.
//   3. Multi-turn: oracle and fault results in each format, executed and state-checked by toolgauge and by BFCL.
//   4. Answer keys with allowed values BFCL itself rejects (each allowed value tried with the others at gold).
// Writes results/bench/bfcl.json and prints a Markdown summary.
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fromRoot } from '../../harness/core/paths.ts';
import type { PyValue } from '../../harness/core/pyliteral/index.ts';
import { outputFor } from '../../harness/bfcl/arbitraries.ts';
import {
  ALL_CATEGORIES,
  isMultiTurn,
  languageOf,
  SINGLE_TURN_CATEGORIES,
  type BfclCategory,
} from '../../harness/bfcl/categories.ts';
import { loadCategory, type BfclCase } from '../../harness/bfcl/data.ts';
import { PythonBfclExecutor } from '../../harness/bfcl/executor.ts';
import { pyJsonDumps } from '../../harness/core/pyliteral/pyjson.ts';
import { goldCallsOf, renderFc, renderPythonic, shapeValue, type GoldCall } from '../../harness/bfcl/render.ts';
import { simulatedResult, type Behaviour } from '../../harness/bfcl/responder.ts';
import { checkCase, checkSingleTurn } from '../../harness/bfcl/score.ts';
import { beyondSingleTurn } from '../../harness/bfcl/beyond.ts';
import { BfclOracle, hasReference, hasSharedData, SHARED_CLASSES, SHARED_DATA } from '../../harness/bfcl/testkit.ts';

const { values } = parseArgs({ options: { 'per-category': { type: 'string' }, 'multi-turn': { type: 'string' } } });
const PER = Number(values['per-category'] ?? 1000);
const MT = Number(values['multi-turn'] ?? 200);
if (!hasSharedData() || !hasReference()) {
  console.error('needs ../shared/data/bfcl (data and reference)');
  process.exit(2);
}
const started = await BfclOracle.start();
if ('skip' in started) {
  console.error(started.skip);
  process.exit(2);
}
const oracle = started;
const exec = new PythonBfclExecutor({ sourceDir: SHARED_CLASSES });
const key = (r: { valid?: boolean; error_type?: string; crash?: string; oracle_error?: string }) =>
  r.oracle_error ? `oracle_error` : r.crash ? `crash:${r.crash}` : `${r.valid}:${r.error_type}`;

type Row = {
  category: string;
  format: string;
  n: number;
  agree: number;
  disagree: number;
  undecided: number;
  bfclValid: number;
  examples: string[];
};
const out: {
  deviations?: Record<string, number>;
  oracle: Row[];
  mutations: Row[];
  multiTurn: Row[];
  unpassable: Array<{ id: string; error_type: string }>;
  rejectedAllowed: Array<{ id: string; param: string; value: string; error_type: string }>;
} = {
  oracle: [],
  mutations: [],
  multiTurn: [],
  unpassable: [],
  rejectedAllowed: [],
};
const t0 = Date.now();
const loaded = new Map<BfclCategory, BfclCase[]>(ALL_CATEGORIES.map((c) => [c, loadCategory(SHARED_DATA, c)]));

async function compareSingle(
  category: BfclCategory,
  items: Array<{ c: BfclCase; result: PyValue; format: 'fc' | 'pythonic' | 'hermes' }>,
): Promise<Row & { fails: BfclCase[] }> {
  const row = {
    category,
    format: items[0]?.format ?? '',
    n: items.length,
    agree: 0,
    disagree: 0,
    undecided: 0,
    bfclValid: 0,
    examples: [] as string[],
    fails: [] as BfclCase[],
  };
  for (let s = 0; s < items.length; s += 300) {
    const batch = items.slice(s, s + 300);
    const refs = await oracle.ask<Array<Record<string, never>>>(
      batch.map(({ c, result, format }) => ({
        op: 'single',
        category,
        entry: c.entry.raw,
        answer: c.answerRaw ?? '{}',
        result: pyJsonDumps(result),
        fmt: format,
        language: languageOf(category),
      })),
    );
    batch.forEach(({ c, result, format }, k) => {
      const v = checkSingleTurn(c, result, { format });
      const ref = refs[k]!;
      if ((ref as { valid?: boolean }).valid) row.bfclValid++;
      else row.fails.push(c);
      if (v.undecided) return void row.undecided++;
      const mine = v.crash ? `crash:${v.error_type.slice('checker_crash:'.length)}` : `${v.valid}:${v.error_type}`;
      if (mine === key(ref)) row.agree++;
      else {
        row.disagree++;
        if (row.examples.length < 5) row.examples.push(`${c.id}: ours ${mine}, BFCL ${key(ref)}`);
      }
    });
  }
  return row;
}

// 1. oracle outputs
for (const category of SINGLE_TURN_CATEGORIES) {
  const cases = loaded.get(category)!;
  for (const format of ['fc', 'hermes', 'pythonic'] as const) {
    if (format === 'pythonic' && languageOf(category) !== 'python') continue;
    const r = await compareSingle(
      category,
      cases.map((c) => ({ c, format, result: simulatedResult(c, format) })),
    );
    const { fails, ...row } = r;
    out.oracle.push(row);
    if (format === 'fc')
      for (const c of fails)
        out.unpassable.push({
          id: c.id,
          error_type: checkSingleTurn(c, simulatedResult(c, 'fc'), { format: 'fc' }).error_type,
        });
  }
}
console.error(`oracle sweep ${Date.now() - t0} ms`);

// 2. generated outputs
for (const [i, category] of SINGLE_TURN_CATEGORIES.entries()) {
  const cases = loaded.get(category)!;
  const pairs = fc.sample(
    fc
      .integer({ min: 0, max: cases.length - 1 })
      .chain((k) => outputFor(cases[k]!).map((o) => ({ c: cases[k]!, result: o.result, format: o.format }))),
    { seed: 4242 + i, numRuns: PER },
  );
  const byFormat = new Map<string, typeof pairs>();
  for (const p of pairs) byFormat.set(p.format, [...(byFormat.get(p.format) ?? []), p]);
  const rows = await Promise.all([...byFormat.values()].map((items) => compareSingle(category, items)));
  const sum = rows.reduce(
    (a, r) => ({
      // biome-ignore lint/performance/noAccumulatingSpread: one row per format (a handful), run once per bench
      ...a,
      n: a.n + r.n,
      agree: a.agree + r.agree,
      disagree: a.disagree + r.disagree,
      undecided: a.undecided + r.undecided,
      bfclValid: a.bfclValid + r.bfclValid,
      examples: [...a.examples, ...r.examples],
    }),
    { category, format: 'all', n: 0, agree: 0, disagree: 0, undecided: 0, bfclValid: 0, examples: [] as string[] },
  );
  out.mutations.push(sum);
}
console.error(`mutation sweep ${Date.now() - t0} ms`);

// 3. multi-turn
const BEHAVIOURS: Behaviour[] = ['oracle', 'decision_failure', 'format_failure'];
for (const category of ALL_CATEGORIES.filter(isMultiTurn)) {
  for (const format of ['fc', 'hermes', 'pythonic'] as const) {
    const row: Row = { category, format, n: 0, agree: 0, disagree: 0, undecided: 0, bfclValid: 0, examples: [] };
    for (const [k, c] of loaded.get(category)!.slice(0, MT).entries()) {
      const behaviour = BEHAVIOURS[k % BEHAVIOURS.length]!;
      const result = simulatedResult(c, format, behaviour);
      const v = await checkCase(c, result, { format, executor: exec });
      const ref = await oracle.ask<Record<string, never>>({
        op: 'multi_turn',
        category,
        entry: c.entry.raw,
        answer: c.answerRaw,
        result: pyJsonDumps(result),
        fmt: format,
      });
      row.n++;
      if ((ref as { valid?: boolean }).valid) row.bfclValid++;
      if (`${v.valid}:${v.error_type}` === key(ref)) row.agree++;
      else {
        row.disagree++;
        if (row.examples.length < 5)
          row.examples.push(`${c.id} ${behaviour}: ours ${v.valid}:${v.error_type}, BFCL ${key(ref)}`);
      }
      if (behaviour === 'oracle' && !v.valid) out.unpassable.push({ id: c.id, error_type: v.error_type });
    }
    out.multiTurn.push(row);
  }
}
console.error(`multi-turn sweep ${Date.now() - t0} ms`);

// 4. allowed values BFCL rejects (in keys some output passes: the others are listed above)
const unpassable = new Set(out.unpassable.map((u) => u.id));
for (const category of SINGLE_TURN_CATEGORIES) {
  for (const c of loaded.get(category)!) {
    if (unpassable.has(c.id)) continue;
    const gold = goldCallsOf(c);
    const pa = c.possibleAnswer;
    if (!pa || pa.t !== 'list' || languageOf(category) !== 'python') continue;
    pa.items.forEach((item, i) => {
      const params = item.t === 'dict' ? item.entries[0]?.[1] : undefined;
      for (const [k, allowed] of params?.t === 'dict' ? params.entries : []) {
        if (k.t !== 'str' || allowed.t !== 'list') continue;
        const name = item.t === 'dict' && item.entries[0]?.[0].t === 'str' ? item.entries[0][0].v : '';
        const pdoc = c.entry.functions.find((f) => f.name === name)?.parameters.properties[k.v];
        for (const allowedValue of allowed.items) {
          if (allowedValue.t === 'str' && allowedValue.v === '') continue;
          const value = shapeValue(allowedValue, pdoc);
          const calls: GoldCall[] = gold.map((g, j) =>
            j !== i ? g : { ...g, args: [...g.args.filter(([p]) => p !== k.v), [k.v, value]] },
          );
          const v = checkSingleTurn(c, renderFc(calls), { format: 'fc' });
          if (!v.valid && !v.undecided) {
            const shown = renderPythonic([{ name: 'x', args: [[k.v, value]] }]).slice(3, -2);
            out.rejectedAllowed.push({
              id: c.id,
              param: k.v,
              value: shown.slice(k.v.length + 1),
              error_type: v.error_type,
            });
          }
        }
      }
    });
  }
}
console.error(`allowed-value sweep ${Date.now() - t0} ms`);

// 5. BFCL verdict vs toolgauge verdict on generated outputs (500 per category)
const deviations: Record<string, number> = {};
for (const [i, category] of SINGLE_TURN_CATEGORIES.entries()) {
  const cases = loaded.get(category)!;
  const pairs = fc.sample(
    fc.integer({ min: 0, max: cases.length - 1 }).chain((k) => outputFor(cases[k]!).map((o) => ({ c: cases[k]!, o }))),
    { seed: 99 + i, numRuns: 500 },
  );
  for (const { c, o } of pairs) {
    const v = checkSingleTurn(c, o.result, { format: o.format });
    const k = beyondSingleTurn(c, o.result, o.format, v).deviation?.class ?? (v.valid ? 'agree_pass' : 'agree_fail');
    deviations[k] = (deviations[k] ?? 0) + 1;
  }
}
out.deviations = deviations;

await exec.dispose();
await oracle.close();
mkdirSync(fromRoot('results', 'bench'), { recursive: true });
writeFileSync(fromRoot('results', 'bench', 'bfcl.json'), JSON.stringify(out, null, 2));

const table = (title: string, rows: Row[]) => {
  console.log(
    `\n### ${title}\n\n| category | format | n | agree | disagree | undecided | BFCL valid |\n|---|---|---|---|---|---|---|`,
  );
  for (const r of rows)
    console.log(
      `| ${r.category} | ${r.format} | ${r.n} | ${r.agree} | ${r.disagree} | ${r.undecided} | ${r.bfclValid} |`,
    );
  const tot = rows.reduce(
    (a, r) => [a[0]! + r.n, a[1]! + r.agree, a[2]! + r.disagree, a[3]! + r.undecided],
    [0, 0, 0, 0],
  );
  console.log(`| **total** | | ${tot[0]} | ${tot[1]} | ${tot[2]} | ${tot[3]} | |`);
  for (const r of rows) for (const e of r.examples) console.log(`- ${e}`);
};
table('Oracle outputs', out.oracle);
table(`Generated outputs (${PER} per category)`, out.mutations);
table(
  `Multi-turn (${MT} cases per category and format; behaviours oracle / decision_failure / format_failure)`,
  out.multiTurn,
);
console.log(`\n### Answer keys no output can pass (${new Set(out.unpassable.map((u) => u.id)).size})\n`);
for (const u of [...new Map(out.unpassable.map((x) => [x.id, x])).values()]) console.log(`- ${u.id}: ${u.error_type}`);
const rejectedCases = new Set(out.rejectedAllowed.map((r) => r.id));
console.log(
  `\n### Allowed values BFCL rejects (${out.rejectedAllowed.length} values in ${rejectedCases.size} cases)\n`,
);
for (const r of out.rejectedAllowed.slice(0, 60)) console.log(`- ${r.id} ${r.param}=${r.value}: ${r.error_type}`);
console.log(`\n### BFCL verdict vs toolgauge verdict on generated outputs (500 per category)\n`);
for (const [k, n] of Object.entries(deviations).sort((a, b) => b[1] - a[1])) console.log(`- ${k}: ${n}`);
console.log(`\n(${Date.now() - t0} ms)`);
