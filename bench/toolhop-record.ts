// Writes the record of a side-by-side run from its result file, for a run made before `--record` was given:
// `npx tsx bench/toolhop-record.ts NAME [results/bench/toolhop-side-by-side.json] [-- BENCH ARGS]` (the bench's
// arguments name the command in the record).
import { readFileSync } from 'node:fs';
import { fromRoot } from '../harness/core/paths.ts';
import { writeRecord } from './record.ts';
import { recordedCommand, referenceSetupLines, type SideBySide, sideBySideFigures } from './toolhop-reference.ts';

const [name, file = fromRoot('results', 'bench', 'toolhop-side-by-side.json'), ...rest] = process.argv.slice(2);
if (!name) throw new Error('usage: toolhop-record.ts NAME [FILE] [-- BENCH ARGS]');
const r = JSON.parse(readFileSync(file, 'utf8')) as SideBySide;
const args = rest[0] === '--' ? rest.slice(1) : rest;
const rec = writeRecord(
  name,
  sideBySideFigures(r),
  recordedCommand(args),
  r.reference ? referenceSetupLines(r.reference) : undefined,
);
console.log(JSON.stringify(rec, null, 2));
