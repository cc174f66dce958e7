import type { ArgRule, ExpectedCall } from './types.ts';
import type { ParsedCall } from '../parse/index.ts';
import { compareArgs, type Mismatch } from './rules.ts';

export interface CallPair {
  expected: ExpectedCall;
  actual: ParsedCall;
  mismatches: Mismatch[];
}

export interface CallMatch {
  /** The multiset of called tool names equals the expected one (order-free: parallel calls have no order). */
  toolCorrect: boolean;
  /** toolCorrect, and some pairing of expected with actual calls matches every argument. */
  argsCorrect: boolean;
  /** The best pairing (fewest mismatching arguments) when toolCorrect. */
  pairs: CallPair[];
  /** In words, when not correct. */
  reason: string | null;
}

const names = (calls: ReadonlyArray<{ name: string }>) => calls.map((c) => c.name).sort();

/**
 * Compare all actual calls with all expected calls — not only the first. Calls are paired by tool name; among
 * same-name calls every assignment is tried (case files hold a handful of calls), and the best one is kept.
 */
export function matchCalls(
  expected: readonly ExpectedCall[],
  actual: readonly ParsedCall[],
  rules: Record<string, ArgRule> = {},
): CallMatch {
  const en = names(expected);
  const an = names(actual);
  if (en.length !== an.length || en.some((n, i) => n !== an[i])) {
    const reason =
      actual.length === 0
        ? 'no call'
        : en.length !== an.length
          ? `expected ${en.length} call(s) (${en.join(', ')}), got ${an.length} (${an.join(', ')})`
          : `expected ${en.join(', ')}, got ${an.join(', ')}`;
    return { toolCorrect: false, argsCorrect: false, pairs: [], reason };
  }
  let best: CallPair[] | null = null;
  let bestCost = Infinity;
  const used = new Array<boolean>(actual.length).fill(false);
  const cur: CallPair[] = [];
  const cost = new Map<string, Mismatch[]>();
  const mm = (i: number, j: number) => {
    const k = `${i}:${j}`;
    let v = cost.get(k);
    if (!v)
      cost.set(
        k,
        (v = compareArgs(
          expected[i]!.arguments,
          actual[j]!.arguments,
          expected[i]!.rules ? { ...rules, ...expected[i]!.rules } : rules,
        )),
      );
    return v;
  };
  const go = (i: number, sofar: number) => {
    if (sofar >= bestCost) return;
    if (i === expected.length) {
      best = [...cur];
      bestCost = sofar;
      return;
    }
    for (let j = 0; j < actual.length; j++) {
      if (used[j] || actual[j]!.name !== expected[i]!.name) continue;
      used[j] = true;
      const m = mm(i, j);
      cur.push({ expected: expected[i]!, actual: actual[j]!, mismatches: m });
      go(i + 1, sofar + m.length);
      cur.pop();
      used[j] = false;
    }
  };
  go(0, 0);
  const pairs: CallPair[] = best ?? [];
  const argsCorrect = bestCost === 0;
  const reason = argsCorrect
    ? null
    : pairs
        .flatMap((p) =>
          p.mismatches.map(
            (m) => `${p.expected.name}.${m.path}: ${m.reason} (expected ${short(m.expected)}, got ${short(m.actual)})`,
          ),
        )
        .join('; ');
  return { toolCorrect: true, argsCorrect, pairs, reason };
}

function short(v: unknown): string {
  const s = v === undefined ? 'nothing' : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}
