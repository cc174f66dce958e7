/**
 * How deep a value from outside (a model's arguments, a dataset row) may nest before the harness refuses it. Every
 * recursive walker over such values checks this bound, so a hostile value fails with a DepthError — which the kit
 * records as the instance's error — rather than a stack overflow that loses the instance. Real tool arguments
 * nest a handful of levels; 256 is far beyond them and far below the stack.
 */
export const MAX_NESTING = 256;

export class DepthError extends Error {
  override name = 'DepthError';
  constructor(what: string, limit = MAX_NESTING) {
    super(`${what} is nested deeper than ${limit} levels`);
  }
}

/** Throws a DepthError when a walker has gone below the bound (call with the depth of the value about to be walked). */
export function checkDepth(depth: number, what = 'a value', limit = MAX_NESTING): void {
  if (depth > limit) throw new DepthError(what, limit);
}
