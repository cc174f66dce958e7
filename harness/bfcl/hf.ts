// BFCL's data from the Hugging Face hub, downloaded once into the hub cache by the same downloader ToolHop uses
// (harness/hub/hf.ts): the category files, their possible answers and, for multi-turn categories, the
// function docs of the simulated classes. The result is a directory with BFCL's layout for loadCategory.
import { dirname, join } from 'node:path';
import { defaultHfHome, ensureHfFile } from '../hub/hf.ts';
import { isMultiTurn, isRelevanceOrIrrelevance, type BfclCategory } from './categories.ts';
import { CLASS_FUNC_DOC_FILES, VERSION_PREFIX } from './data.ts';

export const BFCL_HF_REPO = 'gorilla-llm/Berkeley-Function-Calling-Leaderboard';
/**
 * The revision downloaded by default. The shared copy (../shared/data/bfcl) is BFCL's GitHub commit 6ea5797; set a
 * hub commit hash here (or pass --revision) to pin the download to the same data.
 */
export const BFCL_HF_REVISION = 'main';

export interface BfclHfOptions {
  revision?: string;
  hfHome?: string;
  token?: string;
  endpoint?: string;
  fetchImpl?: typeof fetch;
}

/** The files a set of categories needs, relative to the dataset root. */
export function filesFor(categories: readonly BfclCategory[]): string[] {
  const files = new Set<string>();
  for (const c of categories) {
    files.add(`${VERSION_PREFIX}_${c}.json`);
    if (!isRelevanceOrIrrelevance(c)) files.add(`possible_answer/${VERSION_PREFIX}_${c}.json`);
    if (isMultiTurn(c)) for (const f of Object.values(CLASS_FUNC_DOC_FILES)) files.add(`multi_turn_func_doc/${f}`);
  }
  return [...files].sort();
}

/** Every non-empty line is one JSON document (BFCL's files are JSON lines). */
export function validateJsonLines(text: string): void {
  for (const line of text.split('\n')) if (line.trim()) JSON.parse(line);
}

/**
 * Download what the categories need (cached files are not fetched again) and return the snapshot directory that
 * holds them, as `--data DIR` would name it. Offline with a warm cache works; offline with a cold cache fails
 * with a message that says to pass --data.
 */
export async function ensureBfclData(
  categories: readonly BfclCategory[],
  opts: BfclHfOptions,
  env: NodeJS.ProcessEnv,
): Promise<{ dir: string; commit: string; downloaded: number }> {
  const revision = opts.revision ?? BFCL_HF_REVISION;
  let dir: string | undefined;
  let commit = '';
  let downloaded = 0;
  for (const file of filesFor(categories)) {
    const got = await ensureHfFile({
      repo: BFCL_HF_REPO,
      file,
      revision,
      hfHome: opts.hfHome ?? defaultHfHome(env),
      token: opts.token ?? env.HF_TOKEN,
      endpoint: opts.endpoint ?? env.HF_ENDPOINT ?? 'https://huggingface.co',
      fetchImpl: opts.fetchImpl,
      validate: validateJsonLines,
    });
    const root = file.includes('/') ? dirname(dirname(got.path)) : dirname(got.path);
    if (dir && root !== dir)
      throw new Error(
        `${BFCL_HF_REPO}@${revision} changed while downloading (${got.commit} vs ${commit}); pin --revision to a commit`,
      );
    dir = root;
    commit = got.commit;
    if (got.downloaded) downloaded++;
  }
  if (!dir) throw new Error('no BFCL categories selected');
  return { dir: join(dir), commit, downloaded };
}
