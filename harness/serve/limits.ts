/**
 * Bounds `toolgauge serve` puts on a request before anything is compiled or reaches the engine: llama.cpp's grammar
 * parser recurses once per nesting level (100,000 nested parentheses overflow its stack and kill the engine), and
 * detokenizing an id outside the vocabulary aborts it. Pure; each check throws a 400 naming the field and the limit.
 */
import { HttpError } from './request.ts';

/** Largest raw `grammar`, characters. */
export const MAX_GRAMMAR_CHARS = 256 * 1024;
/** Deepest nesting of parentheses in a raw grammar. */
export const MAX_GRAMMAR_NESTING = 64;

/** How deep a GBNF text nests parentheses (string literals, character classes and comments skipped). */
export function grammarNesting(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === '[') {
      const close = c === '"' ? '"' : ']';
      for (i++; i < text.length && text[i] !== close; i++) if (text[i] === '\\') i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '(') max = Math.max(max, ++depth);
    else if (c === ')') depth--;
  }
  return max;
}

export function checkGrammarSize(field: string, grammar: string): void {
  if (grammar.length > MAX_GRAMMAR_CHARS)
    throw new HttpError(400, `invalid field '${field}': longer than ${MAX_GRAMMAR_CHARS} characters (the limit)`);
  const nesting = grammarNesting(grammar);
  if (nesting > MAX_GRAMMAR_NESTING)
    throw new HttpError(
      400,
      `invalid field '${field}': parentheses nest ${nesting} deep; the limit is ${MAX_GRAMMAR_NESTING}`,
    );
}

/** Token ids must be integers of the vocabulary: 0 ≤ id < vocabSize. */
export function checkTokenIds(field: string, tokens: readonly number[], vocabSize: number): void {
  tokens.forEach((t, i) => {
    if (!Number.isSafeInteger(t) || t < 0 || t >= vocabSize)
      throw new HttpError(
        400,
        `invalid field '${field}.${i}': ${t} is not a token id (the vocabulary has ${vocabSize}: 0 to ${vocabSize - 1})`,
      );
  });
}
