import type { FlagSpecs } from './flags.ts';

/**
 * The source benchmarks write list flags as argparse's `nargs='+'` takes them: the words after the flag, up to the
 * next flag (`--modes P0 P1 P2`, `--only 3 7`). toolgauge's own form is one comma list (`--modes P0,P1,P2`). This
 * turns the first into the second for the flags a command declares `list: true`, so every later reader of the
 * command line (a configuration file's merge, a batch's own flags, parseArgs) sees one value per flag.
 *
 * A word is taken while it does not start with `-`; `--` ends the flags. `--flag=V` takes no more words (as in
 * argparse). Pure: argv in, argv out; an argv without such words comes back unchanged.
 */
export function joinListWords(argv: readonly string[], specs: FlagSpecs): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = a.startsWith('--') && !a.includes('=') ? a.slice(2) : null;
    if (!name || specs[name]?.list !== true || specs[name]?.type !== 'string') {
      out.push(a);
      continue;
    }
    const words: string[] = [];
    while (i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) words.push(argv[++i]!);
    // No word: leave the flag as it is, so the parser says that it needs a value.
    out.push(...(words.length ? [`${a}=${words.join(',')}`] : [a]));
  }
  return out;
}
