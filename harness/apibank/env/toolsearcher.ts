// ToolSearcher scoring. 'official' is the reference's frozen scorer: the predicted keywords, normalised, looked up
// in the recorded keyword -> output cache; on a miss the catalog item nearest by MiniLM embeddings (at level 2 an
// item taking a token comes with GetUserToken first). Without an embedding fallback a miss is undetermined.
// 'keyword' is the reference's offline scorer: normalised predicted keywords equal to the normalised gold ones.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { pyEquals, pyLower, pyRepr, pyStrip, type PyValue } from '../../core/pyliteral/index.ts';
import { pyJsonLoads } from '../../core/pyliteral/pyjson.ts';
import { contains, getItem, L, NONE, S, str, truthy, D } from './py.ts';
import type {
  ApiCall,
  ApiTurn,
  EmbeddingFallback,
  FrozenToolSearcher,
  ScoreResult,
  ToolSearcherMode,
} from './index.ts';
import { jsonToPy } from '../../core/pyliteral/index.ts';
import { isPySpace } from '../../core/pyliteral/unicode.ts';

/** ' '.join(str(value or '').strip().lower().split()) */
export function normalizeKeywords(value: PyValue | undefined): string {
  const s = value === undefined || !truthy(value) ? '' : str(value);
  // str.split(): runs of Python whitespace separate words.
  const words: string[] = [];
  let cur = '';
  for (const ch of pyLower(pyStrip(s))) {
    if (isPySpace(ch.codePointAt(0)!)) {
      if (cur !== '') words.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur !== '') words.push(cur);
  return words.join(' ');
}

const FrozenFile = z.object({
  outputs_by_keyword: z.record(z.string(), z.unknown()),
  catalog: z.record(z.string(), z.unknown()),
  search_items_desc_for_search: z.array(z.object({ name: z.string(), desc_for_search: z.string() })),
});

export function loadFrozenToolSearcher(file: string, level: '2' | '3'): FrozenToolSearcher {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${file}: cannot read the frozen ToolSearcher data (${(err as Error).message})`);
  }
  const r = FrozenFile.safeParse(JSON.parse(text));
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new Error(`${file}: field ${issue.path.map(String).join('.') || '(top)'}: ${issue.message}`);
  }
  // Re-read with Python's reading so key order and float-ness are kept for the equality with gold outputs.
  const py = pyJsonLoads(text);
  const outputs = getItem(py, 'outputs_by_keyword');
  const catalog = getItem(py, 'catalog');
  const asRecord = (d: PyValue): Record<string, PyValue> =>
    Object.fromEntries((d as Extract<PyValue, { t: 'dict' }>).entries.map(([k, v]) => [(k as { v: string }).v, v]));
  return {
    level,
    outputsByKeyword: asRecord(outputs),
    catalog: asRecord(catalog),
    searchItems: r.data.search_items_desc_for_search,
  };
}

function resultOf(keywords: string, output: PyValue): PyValue {
  return D({ api_name: S('ToolSearcher'), input: D({ keywords: S(keywords) }), output, exception: NONE });
}

/** `_frozen_toolsearcher_result`: the output for these keywords, or null when only embeddings could tell. */
function frozenOutput(
  frozen: FrozenToolSearcher,
  keywords: string,
  fallback: EmbeddingFallback | undefined,
): PyValue | null {
  const hit = Object.hasOwn(frozen.outputsByKeyword, normalizeKeywords(S(keywords)))
    ? frozen.outputsByKeyword[normalizeKeywords(S(keywords))]!
    : undefined;
  if (hit !== undefined) return hit;
  if (!fallback) return null;
  const name = fallback({ level: frozen.level, keywords, items: frozen.searchItems });
  if (name === null) throw new ToolSearcherError('RuntimeError: ToolSearcher did not find a best-match API');
  const best = Object.hasOwn(frozen.catalog, name) ? frozen.catalog[name] : undefined;
  if (best === undefined) throw new ToolSearcherError(`KeyError: '${name}'`);
  if (frozen.level === '2' && contains(getItem(best, 'input_parameters'), 'token')) {
    return L([frozen.catalog['GetUserToken']!, best]);
  }
  return best;
}

class ToolSearcherError extends Error {}

export function scoreToolSearcher(
  predicted: ApiCall,
  gold: ApiTurn,
  level: '1' | '2' | '3',
  mode: ToolSearcherMode,
  frozenByLevel: Partial<Record<'2' | '3', FrozenToolSearcher>> | undefined,
  fallback: EmbeddingFallback | undefined,
): ScoreResult {
  const goldResult = jsonToPy(gold.result);
  if (mode === 'keyword') {
    const p = normalizeKeywords(predicted.args['keywords']);
    const g = normalizeKeywords(jsonToPy((gold.param_dict ?? {})['keywords'] ?? null));
    const ok = p === g;
    return {
      correct: ok,
      stage: 'score',
      reason: ok ? null : `ToolSearcher keyword mismatch: ${pyRepr(S(p))} != ${pyRepr(S(g))}`,
      ...(ok ? { predictedResult: goldResult } : {}),
      goldResult: gold.result,
    };
  }
  const key = level === '3' ? '3' : '2';
  const frozen = frozenByLevel?.[key];
  if (!frozen) throw new Error(`ToolSearcher official scoring needs the frozen data of level ${key}`);
  const keywords = str(predicted.args['keywords'] ?? S(''));
  let output: PyValue | null;
  try {
    output = frozenOutput(frozen, keywords, fallback);
  } catch (err) {
    if (!(err instanceof ToolSearcherError)) throw err;
    return { correct: false, stage: 'score', reason: err.message, goldResult: gold.result };
  }
  if (output === null) {
    return {
      correct: null,
      stage: 'score',
      reason: `undetermined: keywords '${normalizeKeywords(S(keywords))}' are not in the frozen cache and no embedding model is configured`,
      goldResult: gold.result,
    };
  }
  const result = resultOf(keywords, output);
  const g = goldResult.t === 'dict' ? goldResult : D({});
  const gOut = contains(g, 'output') ? getItem(g, 'output') : NONE;
  const gExc = contains(g, 'exception') ? getItem(g, 'exception') : NONE;
  const ok = pyEquals(output, gOut) && pyEquals(NONE, gExc);
  return {
    correct: ok,
    stage: 'score',
    reason: ok ? null : 'ToolSearcher official frozen API result mismatch',
    predictedResult: result,
    goldResult: gold.result,
  };
}
