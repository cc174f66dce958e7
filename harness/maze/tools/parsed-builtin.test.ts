import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../core/hash.ts';
import { readYaml } from '../../core/yaml.ts';
import { BUILTIN_TOOLS_DIR, libraryFiles } from './library.ts';
import { PARSED_BUILTIN_FILE, parsedBuiltin } from './parsed-builtin.ts';

const yamlFiles = libraryFiles(BUILTIN_TOOLS_DIR).filter((f) => !f.endsWith('.json'));

describe('the built-in tool files as parsed data', () => {
  it('hold every built-in YAML file as the YAML reader reads it (else: npx tsx scripts/maze-tools-parsed.ts)', () => {
    const stored = JSON.parse(readFileSync(PARSED_BUILTIN_FILE, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(stored).sort()).toEqual(yamlFiles.map((f) => basename(f)).sort());
    expect(yamlFiles.length).toBeGreaterThan(10);
    for (const f of yamlFiles) {
      const text = readFileSync(f, 'utf8');
      expect(stored[basename(f)], basename(f)).toStrictEqual({ sha256: sha256(text), data: readYaml(text) });
      expect(parsedBuiltin(f, text), basename(f)).toStrictEqual({ data: readYaml(text) });
    }
  });

  it('are not used for a text they were not read from, nor for a file outside the built-in folder', () => {
    const f = yamlFiles[0]!;
    const text = readFileSync(f, 'utf8');
    expect(parsedBuiltin(f, `${text}\n# edited\n`)).toBeUndefined();
    expect(parsedBuiltin(join('/elsewhere', basename(f)), text)).toBeUndefined();
  });
});
