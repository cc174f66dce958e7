import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';

// The design lives in the repository (docs/): no file cites a document outside it, and every relative link and
// #anchor in the Markdown pages resolves. The checkers are pure functions of text, tested on small strings first.

/** Pages that parallel work is creating; a link to one resolves once that work is merged. Empty this list then. */
const CREATED_BY_PARALLEL_WORK: string[] = [];

const ROOT = fromRoot();
const THIS_FILE = 'tests/hygiene/docs.test.ts';

// ---------------------------------------------------------------- citations of documents outside the repository

const OUTSIDE = [
  { what: 'a design document outside the repository (DESIGN.md / DESIGN §)', re: /\bDESIGN\b/g },
  { what: 'a path in ../shared other than the data folder', re: /\.\.\/shared\/(?!data(?:\/|\b))[\w.-]*/g },
  { what: 'an absolute path on the build machine', re: /(?<![\w.~-])\/work\/[\w.-]+/g },
];

/** Each citation of something outside the repository in `text`: line number and what it is. */
function outsideCitations(text: string): Array<{ line: number; what: string; found: string }> {
  const out: Array<{ line: number; what: string; found: string }> = [];
  text.split('\n').forEach((line, i) => {
    for (const { what, re } of OUTSIDE) for (const m of line.matchAll(re)) out.push({ line: i + 1, what, found: m[0] });
  });
  return out;
}

// ---------------------------------------------------------------- Markdown links and anchors

/** The text without fenced code blocks (each fenced line kept as an empty line, so line numbers stay). */
function withoutFences(md: string): string[] {
  let fence: string | null = null;
  return md.split('\n').map((line) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (open && open[1]![0] === fence[0] && open[1]!.length >= fence.length) fence = null;
      return '';
    }
    if (open) {
      fence = open[1]!;
      return '';
    }
    return line;
  });
}

/** GitHub's anchor for a heading: the rendered text lowercased, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a page defines: its headings' slugs (repeats get -1, -2, … as on GitHub) and explicit ids. */
function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of withoutFences(md)) {
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  }
  return out;
}

/** Every link target of a page outside code: inline links and images, and reference definitions. */
function linksOf(md: string): Array<{ line: number; target: string }> {
  const out: Array<{ line: number; target: string }> = [];
  withoutFences(md).forEach((raw, i) => {
    const line = raw.replace(/(`+)[^`]*?\1/g, '');
    for (const m of line.matchAll(/!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      out.push({ line: i + 1, target: m[1]! });
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (def) out.push({ line: i + 1, target: def[1]! });
  });
  return out;
}

interface Files {
  /** Whether a path (relative to the repository, `/`-separated) exists, as a file or a folder. */
  exists(path: string): boolean;
  /** A Markdown file's text. */
  read(path: string): string;
}

/** Each link of `file` (a path relative to the repository) that does not resolve, with the reason. */
function brokenLinks(file: string, md: string, files: Files, reserved: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const { line, target } of linksOf(md)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const at = `${file}:${line}: ${target}`;
    const hash = target.indexOf('#');
    const pathPart = decodeURI(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
    const path = pathPart === '' ? file : posix.normalize(posix.join(posix.dirname(file), pathPart)).replace(/\/$/, '');
    if (path === '..' || path.startsWith('../') || posix.isAbsolute(path)) {
      out.push(`${at} (leads outside the repository)`);
      continue;
    }
    if (reserved.includes(path)) continue;
    if (!files.exists(path)) {
      out.push(`${at} (no such file)`);
      continue;
    }
    if (anchor === null || !path.endsWith('.md')) continue;
    if (!anchorsOf(path === file ? md : files.read(path)).has(anchor)) out.push(`${at} (no heading #${anchor})`);
  }
  return out;
}

// ---------------------------------------------------------------- the repository's files

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'results', '.cache', '.engine', 'tmp']);
const TEXT =
  /\.(ts|mts|cts|mjs|cjs|js|py|md|json|jsonc|jsonl|yaml|yml|sh|txt|jinja|html|css|toml)$|^run$|^\.gitignore$/;

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) {
      if (!SKIP_DIRS.has(name)) out.push(...walk(p));
    } else if (TEXT.test(name)) out.push(relative(ROOT, p).split(sep).join('/'));
  }
  return out;
}

const repoFiles: Files = {
  exists: (p) => existsSync(join(ROOT, p)),
  read: (p) => readFileSync(join(ROOT, p), 'utf8'),
};

function markdownPages(): string[] {
  const top = readdirSync(ROOT).filter((f) => f.endsWith('.md'));
  const docs = walk(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
  return [...top, ...docs];
}

describe('the checkers, on small strings', () => {
  it('a DESIGN citation, a ../shared path other than the data folder and a machine path are found; the data folder is not', () => {
    expect(outsideCitations('// the judge (DESIGN §4.2)').map((c) => c.found)).toEqual(['DESIGN']);
    expect(outsideCitations('see ../shared/DESIGN.md, §6').map((c) => c.what)).toEqual([
      OUTSIDE[0]!.what,
      OUTSIDE[1]!.what,
    ]);
    expect(outsideCitations('x\n// from ../shared/hooks/run.sh')).toEqual([
      { line: 2, what: OUTSIDE[1]!.what, found: '../shared/hooks' },
    ]);
    expect(outsideCitations('const p = "/work/ref/bfcl";')).toHaveLength(1);
    expect(
      outsideCitations('reads ../shared/data/bfcl and skips without it; see docs/maze.md; a design choice'),
    ).toEqual([]);
  });

  it('GitHub anchors: punctuation dropped, spaces as hyphens, repeats numbered, code and link text kept', () => {
    const a = anchorsOf(
      "# Top\n## BFCL's semantics, as emulated\n## Running a model: `toolgauge bfcl`\n## Notes\n## Notes\n### [Link](x.md) text\n```\n## not a heading\n```\n",
    );
    expect([...a]).toEqual([
      'top',
      'bfcls-semantics-as-emulated',
      'running-a-model-toolgauge-bfcl',
      'notes',
      'notes-1',
      'link-text',
    ]);
  });

  it('a link to a missing file or a missing heading is broken; one to an existing page, folder or heading, or inside code, is not', () => {
    const pages: Record<string, string> = { 'docs/a.md': '# A\n## Real heading\n', 'docs/b.md': '' };
    const files: Files = { exists: (p) => p in pages || p === 'docs' || p === 'examples', read: (p) => pages[p] ?? '' };
    const md = [
      '[ok](a.md) [ok](a.md#real-heading) [ok](#here) [ok](../examples/) [ok](https://example.com/x#y)',
      '## Here',
      '[bad](missing.md) [bad](a.md#nope) [bad](#nowhere) [bad](../../outside.md)',
      '`[in code](missing.md)`',
      '```md',
      '[in a fence](missing.md)',
      '```',
      '[ref]: gone.md',
      '[reserved](later.md)',
    ].join('\n');
    expect(brokenLinks('docs/b.md', md, files, ['docs/later.md'])).toEqual([
      'docs/b.md:3: missing.md (no such file)',
      'docs/b.md:3: a.md#nope (no heading #nope)',
      'docs/b.md:3: #nowhere (no heading #nowhere)',
      'docs/b.md:3: ../../outside.md (leads outside the repository)',
      'docs/b.md:8: gone.md (no such file)',
    ]);
  });
});

describe('the repository', () => {
  it('no file cites a document outside the repository (only ../shared/data, which tests skip without)', () => {
    const found = walk(ROOT)
      .filter((f) => f !== THIS_FILE)
      .flatMap((f) =>
        outsideCitations(readFileSync(join(ROOT, f), 'utf8')).map((c) => `${f}:${c.line}: ${c.found} (${c.what})`),
      );
    expect(found).toEqual([]);
  });

  it('every relative link and #anchor in README.md, the top-level pages and docs/ resolves', () => {
    const pages = markdownPages();
    expect(pages).toContain('README.md');
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.flatMap((p) => brokenLinks(p, repoFiles.read(p), repoFiles, CREATED_BY_PARALLEL_WORK))).toEqual([]);
  });

  it('the README is a front door: under 200 lines, with every suite in its one table', () => {
    const readme = repoFiles.read('README.md');
    expect(readme.split('\n').length).toBeLessThan(200);
    // cells padded to the column's width (the formatter aligns Markdown tables)
    for (const suite of ['toolhop', 'maze', 'probe', 'bfcl', 'apibank'])
      expect(readme).toMatch(
        new RegExp(`\\| \`toolgauge ${suite}\` +\\| \\[docs/${suite}\\.md\\]\\(docs/${suite}\\.md\\) +\\|`),
      );
  });

  it('the list of pages created by parallel work holds none that exists yet (empty it once they are merged)', () => {
    expect(CREATED_BY_PARALLEL_WORK.filter((p) => repoFiles.exists(p))).toEqual([]);
  });
});
