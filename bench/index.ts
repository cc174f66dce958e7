// `npm run bench`: every benchmark in turn (ToolHop, Maze, the probe suite, the parsers); each writes its figures
// to results/bench/<name>.json (the parser bench to bench/records/, see bench/record.ts) and prints them. Not part of `npm test`: timings belong here, not in unit tests.
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { fromRoot } from '../harness/core/paths.ts';

const benches = [
  ['toolhop', fromRoot('bench', 'toolhop.ts')],
  ['maze', fromRoot('bench', 'maze.ts')],
  ['probe', fromRoot('bench', 'probe.ts')],
  ['parsers', fromRoot('bench', 'parse.ts')],
] as const;

let failed = 0;
for (const [name, file] of benches) {
  if (!existsSync(file)) continue;
  console.log(`\n=== ${name} (${file.replace(fromRoot() + '/', '')}) ===`);
  const r = await execa('npx', ['tsx', file], { stdio: 'inherit', reject: false, cwd: fromRoot() });
  if (r.exitCode !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
