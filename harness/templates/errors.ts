/**
 * Why a template could not be rendered.
 * - `unparseable`: a syntax error (the template is broken for every engine).
 * - `engine_unsupported`: a construct @huggingface/jinja cannot render the way Python's jinja2 does; says nothing
 *   about the template, only about our engine.
 * - `raised`: the template's own `raise_exception(...)`.
 * - `render_error`: a runtime error Python's jinja2 would raise too (None + str, dict + str, undefined method…).
 * - `budget_exceeded`: the render ran out of its step or time budget (engine.ts RENDER_BUDGET): a template that
 *   loops that long is a defect of its own, reported instead of hanging.
 */
export type TemplateErrorKind = 'unparseable' | 'engine_unsupported' | 'raised' | 'render_error' | 'budget_exceeded';

export class TemplateError extends Error {
  override name = 'TemplateError';
  constructor(
    readonly kind: TemplateErrorKind,
    message: string,
    /** For `engine_unsupported`: the construct, in words (stable across renders, used to de-duplicate). */
    readonly construct?: string,
  ) {
    super(message);
  }
}

/** Thrown by the template's `raise_exception(msg)`. */
export class TemplateRaise extends Error {
  override name = 'TemplateRaise';
}

/** Thrown where our engine knowingly diverges from Python's jinja2. */
export class EngineUnsupported extends Error {
  override name = 'EngineUnsupported';
  constructor(
    readonly construct: string,
    detail?: string,
  ) {
    super(detail ? `${construct}: ${detail}` : construct);
  }
}

/** A runtime error that Python's jinja2 raises as well (TypeError and friends). */
export class PythonRuntimeError extends Error {
  override name = 'PythonRuntimeError';
}
