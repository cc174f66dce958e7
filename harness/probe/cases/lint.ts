import type { OpenAITool } from '../../core/chat.ts';
import { schemaErrors } from '../../calls/score/schema.ts';
import type { LoadedCases } from './load.ts';
import { CATEGORIES, priorCalls, type ProbeCase } from './types.ts';
import { pushTo } from '../../core/push-to.ts';

/**
 * The case linter: problems a case set can have beyond its JSON schema (which the loader already enforces).
 *
 * errors — schema: expected and prior calls validate against their tool's JSON Schema; argument rules name
 *   arguments that are expected. leakage: no slot value and no user message appears in two splits.
 * warnings — distribution: every category present in every split (with a minimum count), the catalog sizes of
 *   C7, the correct tool not parked at the first catalog position, every phrasing used in every split,
 *   every tool parameter described, a sane share of abstention cases.
 */

export interface LintIssue {
  rule: 'schema' | 'leakage' | 'category' | 'catalog_size' | 'position' | 'phrasing' | 'descriptions' | 'abstention';
  id?: string;
  message: string;
}

export interface LintReport {
  errors: LintIssue[];
  warnings: LintIssue[];
  stats: {
    cases: number;
    bySplit: Record<string, Record<string, number>>;
    /** first-position share of the correct tool among single-call cases with ≥ 3 tools */
    firstPositionShare: number | null;
  };
}

export interface LintOptions {
  /** `<family>: [<family>#<k>…]` — every listed phrasing must be used in every split. */
  phrasings?: Record<string, string[]>;
  /** Minimum cases per category and split (default 8). */
  minPerCategory?: number;
  /** The categories a complete set covers (default C1–C8). */
  categories?: readonly string[];
}

const fold = (s: string) => s.normalize('NFKC').trim().toLowerCase();

function paramsOf(t: OpenAITool): Record<string, Record<string, unknown>> {
  return ((t.function.parameters as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties ??
    {}) as Record<string, Record<string, unknown>>;
}

/** The argument paths a value has (`a`, `a.b`, `items[]`, `items[].name`). */
function pathsOf(v: unknown, prefix: string, out: Set<string>): void {
  if (Array.isArray(v)) {
    out.add(`${prefix}[]`);
    for (const x of v) pathsOf(x, `${prefix}[]`, out);
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const p = prefix ? `${prefix}.${k}` : k;
      out.add(p);
      pathsOf(x, p, out);
    }
  }
}

/** Content values of a case for the leakage check: its recorded slots, else the leaves of its expected arguments. */
function slotValues(c: ProbeCase): { values: string[]; derived: boolean } {
  if (c.slots) return { values: Object.values(c.slots), derived: false };
  const out: string[] = [];
  const enums = new Set<string>();
  for (const t of c.tools)
    for (const p of Object.values(paramsOf(t)))
      for (const e of (p.enum as unknown[] | undefined) ?? []) enums.add(String(e));
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    else if (typeof v === 'string' && !enums.has(v)) out.push(v);
  };
  for (const e of c.expected ?? []) walk(e.arguments);
  return { values: out, derived: true };
}

export function lintCases(loaded: Pick<LoadedCases, 'cases' | 'palette'>, opts: LintOptions = {}): LintReport {
  const errors: LintIssue[] = [];
  const warnings: LintIssue[] = [];
  const cases = loaded.cases;
  const splits = [...new Set(cases.map((c) => c.split))].sort();

  // Schema: expected calls and prior calls are valid calls of their tools; rules name expected arguments.
  for (const c of cases) {
    for (const e of c.expected ?? []) {
      for (const problem of schemaErrors(e, c.tools))
        errors.push({ rule: 'schema', id: c.id, message: `expected call ${problem}` });
    }
    for (const p of priorCalls(c)) {
      for (const problem of schemaErrors(p, c.tools))
        errors.push({ rule: 'schema', id: c.id, message: `prior call ${problem}` });
    }
    const paths = new Set<string>();
    for (const e of c.expected ?? []) pathsOf(e.arguments, '', paths);
    const ruleKeys = [...Object.keys(c.rules), ...(c.expected ?? []).flatMap((e) => Object.keys(e.rules ?? {}))];
    for (const k of ruleKeys) {
      if (!paths.has(k))
        (c.expected ? errors : warnings).push({
          rule: 'schema',
          id: c.id,
          message: `argument rule '${k}' names no expected argument`,
        });
    }
  }

  // Leakage: slot values and user texts, across splits.
  const seen = new Map<string, Map<string, string>>(); // value → split → first case id
  const texts = new Map<string, Map<string, string>>();
  let derivedAny = false;
  for (const c of cases) {
    const { values, derived } = slotValues(c);
    derivedAny ||= derived;
    for (const v of values) {
      const m = seen.get(fold(v)) ?? new Map<string, string>();
      if (!m.has(c.split)) m.set(c.split, c.id);
      seen.set(fold(v), m);
    }
    for (const msg of c.messages) {
      if (msg.role !== 'user' || typeof msg.content !== 'string') continue;
      const m = texts.get(fold(msg.content)) ?? new Map<string, string>();
      if (!m.has(c.split)) m.set(c.split, c.id);
      texts.set(fold(msg.content), m);
    }
  }
  for (const [v, m] of seen) {
    if (m.size < 2) continue;
    const where = [...m].map(([s, id]) => `${s} (${id})`).join(' and ');
    (derivedAny ? warnings : errors).push({
      rule: 'leakage',
      id: [...m.values()][0],
      message: `value '${v}' appears in ${where}`,
    });
  }
  for (const [t, m] of texts) {
    if (m.size < 2) continue;
    errors.push({
      rule: 'leakage',
      id: [...m.values()][0],
      message: `user message '${t.slice(0, 60)}' appears in ${[...m.keys()].join(' and ')}`,
    });
  }

  // Distribution: categories per split.
  const bySplit: Record<string, Record<string, number>> = {};
  for (const c of cases) {
    const s = (bySplit[c.split] ??= {});
    s[c.cat] = (s[c.cat] ?? 0) + 1;
  }
  const min = opts.minPerCategory ?? 8;
  for (const split of splits) {
    for (const cat of opts.categories ?? CATEGORIES) {
      const n = bySplit[split]?.[cat] ?? 0;
      if (n < min)
        warnings.push({
          rule: 'category',
          message: `split ${split}: category ${cat} has ${n} case(s) (fewer than ${min})`,
        });
    }
  }

  // C7 catalog sizes.
  for (const split of splits) {
    const sizes = new Set(cases.filter((c) => c.split === split && c.cat === 'C7').map((c) => c.tools.length));
    const missing = [3, 8, 16, 32].filter((n) => !sizes.has(n));
    if (cases.some((c) => c.split === split && c.cat === 'C7') && missing.length)
      warnings.push({
        rule: 'catalog_size',
        message: `split ${split}: C7 has no catalog of size ${missing.join(', ')}`,
      });
  }

  // Position of the correct tool.
  const single = cases.filter((c) => c.expected?.length === 1 && c.tools.length >= 3);
  const pos = (c: ProbeCase) => c.tools.findIndex((t) => t.function.name === c.expected![0]!.name);
  const first = single.filter((c) => pos(c) === 0).length;
  const firstShare = single.length ? first / single.length : null;
  if (firstShare !== null && single.length >= 6 && firstShare > 0.5) {
    warnings.push({
      rule: 'position',
      message: `the correct tool is listed first in ${first} of ${single.length} cases with 3 or more tools: shuffle the catalog (models favour the first tool)`,
    });
  }
  const bySize = new Map<number, ProbeCase[]>();
  for (const c of single) pushTo(bySize, c.tools.length, c);
  for (const [size, cs] of bySize) {
    if (cs.length < 6) continue;
    const distinct = new Set(cs.map(pos)).size;
    if (distinct < Math.min(3, size))
      warnings.push({
        rule: 'position',
        message: `catalogs of ${size} tools: the correct tool takes only ${distinct} distinct position(s) over ${cs.length} cases`,
      });
  }

  // Phrasings.
  if (opts.phrasings) {
    for (const split of splits) {
      const used = new Set(cases.filter((c) => c.split === split && c.phrasing).map((c) => c.phrasing!));
      for (const [family, list] of Object.entries(opts.phrasings)) {
        if (!cases.some((c) => c.split === split && c.family === family)) continue;
        for (const p of list)
          if (!used.has(p)) warnings.push({ rule: 'phrasing', message: `split ${split}: phrasing ${p} is never used` });
      }
    }
  }

  // Parameter descriptions.
  const tools = new Map<string, OpenAITool>();
  for (const c of cases) for (const t of c.tools) tools.set(t.function.name, t);
  for (const [name, t] of tools) {
    const bare = Object.entries(paramsOf(t))
      .filter(([, p]) => typeof p.description !== 'string' || p.description.trim() === '')
      .map(([k]) => k);
    if (bare.length)
      warnings.push({
        rule: 'descriptions',
        message: `tool ${name}: parameter(s) without a description: ${bare.join(', ')}`,
      });
    if (!t.function.description) warnings.push({ rule: 'descriptions', message: `tool ${name} has no description` });
  }

  // Abstention share.
  for (const split of splits) {
    const inSplit = cases.filter((c) => c.split === split);
    const share = inSplit.filter((c) => c.expected === null).length / Math.max(1, inSplit.length);
    if (inSplit.length >= 20 && (share < 0.05 || share > 0.4))
      warnings.push({
        rule: 'abstention',
        message: `split ${split}: ${(share * 100).toFixed(0)}% abstention cases (expected 5–40%)`,
      });
  }

  return { errors, warnings, stats: { cases: cases.length, bySplit, firstPositionShare: firstShare } };
}
