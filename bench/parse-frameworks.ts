/**
 * Agreement of the strict tier with the serving frameworks' own parser tests (fixtures/parse/<family>/frameworks.json):
 * per family and source, the cases whose asserted calls (and content/reasoning where asserted) toolgauge gives,
 * with the family named and the case's tools. Known differences count as disagreements and are listed.
 *
 *   npx tsx bench/parse-frameworks.ts [--json]
 */
import { frameworkAgreement, loadFrameworkCases } from '../harness/parse/frameworks.ts';

const rows = new Map<string, { agree: number; total: number }>();
const misses: Array<{ id: string; known: boolean; why: string[] }> = [];
let agree = 0;
const cases = loadFrameworkCases();
for (const fx of cases) {
  const a = frameworkAgreement(fx);
  const key = `${fx.family}\t${fx.case.source.split(' ')[0]}`;
  const row = rows.get(key) ?? { agree: 0, total: 0 };
  row.total++;
  if (a.agree) {
    row.agree++;
    agree++;
  } else misses.push({ id: fx.id, known: fx.case.known_difference !== undefined, why: a.why });
  rows.set(key, row);
}
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ agree, total: cases.length, rows: Object.fromEntries(rows), misses }, null, 1));
} else {
  console.log('family\tsource\tagree/cases');
  for (const [k, r] of [...rows].sort()) console.log(`${k}\t${r.agree}/${r.total}`);
  console.log(`all\t\t${agree}/${cases.length} (${((100 * agree) / cases.length).toFixed(1)}%)`);
  for (const m of misses)
    console.log(`${m.known ? 'known difference' : 'MISS'}\t${m.id}\t${m.why.join(' | ').slice(0, 160)}`);
}
