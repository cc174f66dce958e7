// score_answer of the reference ToolHop runner (Python), replicated exactly with the pyliteral emulation.
import { literalEval, pyEquals, PyLiteralError, PyLiteralUnsupported, type PyValue } from '../core/pyliteral/index.ts';
import { codePoints, cpsIncludes, cpsLower, cpsRemoveSuffix, pyStrip } from '../core/pyliteral/pystr.ts';
import { answerSpan, predictedAnswer } from './answer.ts';

export type ScoreRule = 'literal' | 'substring' | 'tool_result';

export interface ScoreResult {
  correct: boolean;
  /** Which of score_answer's `return True` fired; null when it returned False. */
  rule: ScoreRule | null;
  /** predictedAnswer(finalMessage): the span scored, stripped, for reports. */
  predicted: string;
  /**
   * Set when a literal's value could not be represented exactly (see PyLiteralUnsupported), so the literal
   * comparison was taken as unequal; the other rules are exact regardless.
   */
  undecided?: true;
}

const DOT_ZERO = codePoints('.0');
const COMMA = 0x2c;

type Parsed = { ok: true; value: PyValue } | { ok: false } | { ok: 'unsupported' };

function parseLiteral(src: string): Parsed {
  try {
    return { ok: true, value: literalEval(src) };
  } catch (err) {
    if (err instanceof PyLiteralUnsupported) return { ok: 'unsupported' };
    if (err instanceof PyLiteralError) return { ok: false };
    throw err;
  }
}

/**
 * `answer.removesuffix(".0").lower() in text.removesuffix(".0").replace(",", "").lower()`, on code points as
 * Python does it (so removing commas never fuses surrogates into a new character).
 */
function looseContains(answer: string, text: string): boolean {
  const needle = cpsLower(cpsRemoveSuffix(codePoints(answer), DOT_ZERO));
  const hay = cpsLower(cpsRemoveSuffix(codePoints(text), DOT_ZERO).filter((c) => c !== COMMA));
  return cpsIncludes(hay, needle);
}

/**
 * score_answer(gold, final_message, previous_tool_content):
 *   the solution is the text after the last "<answer>" up to the next "</answer>" (case-sensitive);
 *   if gold.strip() is a Python literal: correct when the solution (stripped) is a literal equal to it (rule
 *   "literal"); otherwise correct when gold minus one trailing ".0", lowercased, is a substring of the solution
 *   minus one trailing ".0", without commas, lowercased ("substring");
 *   failing those, correct when the previous tool content is non-empty and contains gold the same way
 *   ("tool_result").
 */
export function scoreAnswer(goldAnswer: string, finalMessage: string, previousToolContent = ''): ScoreResult {
  const predicted = predictedAnswer(finalMessage);
  const solution = answerSpan(finalMessage);

  let undecided = false;
  const result = (rule: ScoreRule | null): ScoreResult => ({
    correct: rule !== null,
    rule,
    predicted,
    ...(undecided ? { undecided: true as const } : {}),
  });

  const gold = parseLiteral(pyStrip(goldAnswer));
  if (gold.ok === false) {
    if (looseContains(goldAnswer, solution)) return result('substring');
  } else {
    const sol = parseLiteral(pyStrip(solution));
    if (sol.ok === true && gold.ok === true) {
      if (pyEquals(gold.value, sol.value)) return result('literal');
    } else if (sol.ok !== false) {
      undecided = true;
    }
  }
  if (previousToolContent && looseContains(goldAnswer, previousToolContent)) return result('tool_result');
  return result(null);
}
