// BFCL v4's test categories and groups, named exactly as BFCL names them (bfcl_eval/constants/category_mapping.py
// at the pinned commit), restricted to the categories toolgauge scores: memory, web search and format sensitivity
// need a network or an embedding model and are out of scope.

export const NON_LIVE_CATEGORIES = [
  'simple_python',
  'simple_java',
  'simple_javascript',
  'multiple',
  'parallel',
  'parallel_multiple',
  'irrelevance',
] as const;
export const LIVE_CATEGORIES = [
  'live_simple',
  'live_multiple',
  'live_parallel',
  'live_parallel_multiple',
  'live_irrelevance',
  'live_relevance',
] as const;
export const MULTI_TURN_CATEGORIES = [
  'multi_turn_base',
  'multi_turn_miss_func',
  'multi_turn_miss_param',
  'multi_turn_long_context',
] as const;

export const SINGLE_TURN_CATEGORIES = [...NON_LIVE_CATEGORIES, ...LIVE_CATEGORIES] as const;
export const ALL_CATEGORIES = [...SINGLE_TURN_CATEGORIES, ...MULTI_TURN_CATEGORIES] as const;
export type BfclCategory = (typeof ALL_CATEGORIES)[number];

/**
 * BFCL's groups. `all_scoring` is BFCL's name; in BFCL it also holds the agentic (memory, web search) categories,
 * which toolgauge does not run, so here it is every category toolgauge scores.
 */
export const GROUPS: Record<string, readonly BfclCategory[]> = {
  all_scoring: ALL_CATEGORIES,
  multi_turn: MULTI_TURN_CATEGORIES,
  single_turn: SINGLE_TURN_CATEGORIES,
  live: LIVE_CATEGORIES,
  non_live: NON_LIVE_CATEGORIES,
  python: ['simple_python', 'irrelevance', 'parallel', 'multiple', 'parallel_multiple', ...LIVE_CATEGORIES],
  non_python: ['simple_java', 'simple_javascript'],
};

/** Categories BFCL has but toolgauge leaves out, so a user naming one gets a clear refusal rather than "unknown". */
export const OUT_OF_SCOPE = [
  'memory',
  'memory_kv',
  'memory_vector',
  'memory_rec_sum',
  'web_search',
  'web_search_base',
  'web_search_no_snippet',
  'agentic',
  'format_sensitivity',
  'all',
] as const;

export function isCategory(name: string): name is BfclCategory {
  return (ALL_CATEGORIES as readonly string[]).includes(name);
}

/**
 * Expand category and group names (BFCL's parse_test_category_argument): a sorted, de-duplicated list.
 * Throws a one-line error naming the bad value and the accepted ones.
 */
export function expandCategories(names: readonly string[]): BfclCategory[] {
  const out = new Set<BfclCategory>();
  for (const raw of names) {
    const name = raw.trim();
    if (!name) continue;
    if (GROUPS[name]) for (const c of GROUPS[name]!) out.add(c);
    else if (isCategory(name)) out.add(name);
    else if ((OUT_OF_SCOPE as readonly string[]).includes(name)) {
      throw new Error(
        `BFCL category '${name}' is out of scope for toolgauge (memory, web search and format sensitivity need a network or an embedding model)`,
      );
    } else {
      throw new Error(
        `unknown BFCL category '${name}' (expected a category: ${ALL_CATEGORIES.join(', ')}; or a group: ${Object.keys(GROUPS).join(', ')})`,
      );
    }
  }
  return [...out].sort();
}

// BFCL decides everything by substring tests on the category name (bfcl_eval/utils.py); the same tests here.
export const isMultiTurn = (c: string) => c.includes('multi_turn');
export const isRelevanceOrIrrelevance = (c: string) => c.includes('relevance') || c.includes('irrelevance');
export const isIrrelevance = (c: string) => c.includes('irrelevance');
export const isJs = (c: string) => c.includes('javascript');
export const isJava = (c: string) => c.includes('java') && !isJs(c);
/** miss_func / miss_param turns whose ground truth is empty: the model must not call anything there. */
export const containsMultiTurnIrrelevance = (c: string) => c.includes('miss_func') || c.includes('miss_param');
export const isLongContext = (c: string) => c.includes('long_context') || c.includes('composite');

export type Language = 'python' | 'java' | 'javascript';
export function languageOf(category: string): Language {
  return isJava(category) ? 'java' : isJs(category) ? 'javascript' : 'python';
}

/** The kind of checking a category gets (BFCL's evaluate_task dispatch). */
export type CheckKind = 'relevance' | 'ast' | 'multi_turn';
export function checkKindOf(category: string): CheckKind {
  if (isRelevanceOrIrrelevance(category)) return 'relevance';
  if (isMultiTurn(category)) return 'multi_turn';
  return 'ast';
}

/** BFCL's extract_test_category_from_id: everything before the last underscore. */
export function categoryOfId(id: string): string {
  const base = id.includes(':') ? id.split(':')[0]! : id;
  const k = base.lastIndexOf('_');
  return k < 0 ? base : base.slice(0, k);
}

/** The category named by a result or score file name (BFCL's extract_test_category). */
export function categoryOfFileName(name: string): string | undefined {
  const m = /.*BFCL_v4_(\w+?)(?:_score|_result)?\.json/.exec(name);
  return m?.[1];
}

/** BFCL's sort_key for ids `<category>_<n>` and `<category>_<n>-<a>-<b>`: by category, then n. */
export function idIndex(id: string): number {
  const base = id.split(':')[0]!;
  let index = base.slice(base.lastIndexOf('_') + 1);
  if (index.includes('-')) index = index.split('-')[0]!;
  return Number.parseInt(index, 10);
}
