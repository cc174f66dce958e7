// Writes cases/maze/tools.parsed.json: each built-in Maze tool file's YAML as data, with the sha256 of its text
// (harness/maze/tools/parsed-builtin.ts). Run after editing a file in cases/maze/tools/:
//   npx tsx scripts/maze-tools-parsed.ts
// A file whose text no longer matches is read from its YAML (slower, the same data); a unit test fails until then.

import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { sha256 } from '../harness/core/hash.ts';
import { readYaml } from '../harness/core/yaml.ts';
import { PARSED_BUILTIN_FILE, type ParsedBuiltin } from '../harness/maze/tools/parsed-builtin.ts';
import { BUILTIN_TOOLS_DIR, libraryFiles } from '../harness/maze/tools/library.ts';

const out: ParsedBuiltin = {};
for (const file of libraryFiles(BUILTIN_TOOLS_DIR)) {
  if (file.endsWith('.json')) continue;
  const text = readFileSync(file, 'utf8');
  out[basename(file)] = { sha256: sha256(text), data: readYaml(text) };
}
writeFileSync(PARSED_BUILTIN_FILE, `${JSON.stringify(out)}\n`);
console.log(`${PARSED_BUILTIN_FILE}: ${Object.keys(out).length} files`);
