import { readFileSync } from 'node:fs';
import { fromRoot } from '../../harness/core/paths.ts';

// docs/eval.md's examples as the package tests write them into fresh projects: the page is the source of the files.

const PAGE = readFileSync(fromRoot('docs', 'eval.md'), 'utf8');

function section(heading: string): string {
  const at = PAGE.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`docs/eval.md has no "${heading}" section`);
  const end = PAGE.indexOf('\n## ', at + 1);
  return PAGE.slice(at, end < 0 ? undefined : end);
}

export interface PageBlock {
  lang: string;
  /** The block's title: the file it is. */
  file: string | undefined;
  text: string;
}

/** The fenced blocks of a section (a fence opens and closes a line): language, title (a file name), text. */
export function evalPageBlocks(heading: string): PageBlock[] {
  return [...section(heading).matchAll(/^```(\w+)(?: ([^\n]+))?\n([\s\S]*?)^```/gm)].map((m) => ({
    lang: m[1]!,
    file: m[2],
    text: m[3]!,
  }));
}

/**
 * The project of the features' examples (tests/package/fresh-features.test.ts runs them): the page's tsconfig.json
 * and the titled files of its sections on expected tool calls, judged scorers and the agent adapters.
 */
export const FEATURE_FILES: Array<PageBlock & { file: string }> = [
  ...evalPageBlocks('## The files and commands').filter((b) => b.file === 'tsconfig.json'),
  ...evalPageBlocks('## Expected tool calls'),
  ...evalPageBlocks('## Judged scorers'),
  ...evalPageBlocks('## Your existing agent'),
].filter((b): b is PageBlock & { file: string } => b.file !== undefined);
