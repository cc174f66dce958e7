// Reading a data file the user names (cases, palettes, lineups, templates, task files): what cannot be read or
// parsed is a DataError naming the file, in one line.
import { readFileSync } from 'node:fs';
import { DataError } from './errors.ts';
import { readYaml } from './yaml.ts';

/** The file's text; a DataError `cannot read <what> (<code>)` when it cannot be read. */
export function readDataText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new DataError(
      file,
      undefined,
      undefined,
      `cannot read ${what} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
}

/** A `.json` file's text as JSON, any other file's as YAML; a DataError `not valid JSON|YAML: <first line>`. */
export function readJsonOrYaml(text: string, file: string): unknown {
  const json = file.endsWith('.json');
  try {
    return json ? JSON.parse(text) : readYaml(text);
  } catch (e) {
    throw new DataError(
      file,
      undefined,
      undefined,
      `not valid ${json ? 'JSON' : 'YAML'}: ${(e as Error).message.split('\n')[0]}`,
    );
  }
}
