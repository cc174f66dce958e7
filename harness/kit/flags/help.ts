import type { FlagSpec, FlagSpecs } from './flags.ts';

/** `--config FILE`: read by `applyConfig` before the flags are parsed, so no command's specs hold it. */
export const CONFIG_FLAG: FlagSpecs = {
  config: { type: 'string', description: 'a YAML or JSON file of these flags, each as a key (docs/config.md)' },
};

function valueHint(spec: FlagSpec): string {
  if (spec.type === 'boolean') return '';
  if (spec.values) return ` ${spec.values.join('|')}`;
  return ' VALUE';
}

/**
 * The flags section of a command's `--help`, made from the flag definitions the command parses with, so a flag
 * cannot be accepted without being listed: one line per flag, its short form, values and description.
 */
export function flagHelp(specs: FlagSpecs): string {
  const heads = Object.entries(specs).map(
    ([name, s]) => [`${s.short ? `-${s.short}, ` : ''}--${name}${valueHint(s)}${s.multiple ? ' …' : ''}`, s] as const,
  );
  const width = Math.min(40, Math.max(...heads.map(([h]) => h.length)));
  const lines = heads.map(([head, s]) => (s.description ? `  ${head.padEnd(width)}  ${s.description}` : `  ${head}`));
  return `flags:\n${lines.join('\n')}`;
}
