// The one YAML reader: every file toolgauge reads as YAML (config, lineups, registries, palettes, Maze tool and
// task files) goes through `readYaml`, so each gets the same bounds and the same one-line errors. Aliases are
// bounded (`maxAliasCount`): a file whose aliases expand without end — a "billion laughs" — is refused.

import { createRequire } from 'node:module';

/** How many times an alias may be expanded in one file (the `yaml` package's own default, stated here). */
export const YAML_MAX_ALIAS_COUNT = 100;

/** A YAML text that cannot be read; the message is one line. */
export class YamlError extends Error {
  override name = 'YamlError';
}

/**
 * A YAML text as plain data. `uniqueKeys` refuses a repeated key. Any problem — syntax, a repeated key, aliases
 * over the bound — is a YamlError with a one-line message.
 */
export function readYaml(text: string, o: { uniqueKeys?: boolean } = {}): unknown {
  // loaded on first use: commands that read no YAML never load the parser
  const { parseDocument } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const firstLine = (e: unknown) => String((e as Error)?.message ?? e).split('\n')[0]!;
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { uniqueKeys: o.uniqueKeys ?? true });
  } catch (e) {
    throw new YamlError(firstLine(e));
  }
  const e = doc.errors[0];
  if (e) throw new YamlError(firstLine(e));
  try {
    return doc.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT });
  } catch (err) {
    throw new YamlError(firstLine(err));
  }
}
