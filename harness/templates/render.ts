import { compileTemplate, runTemplate, type RenderAllowance } from './engine.ts';
import { EngineUnsupported, TemplateRaise } from './errors.ts';
import { strftime } from './strftime.ts';
import type { ChatMessage, OpenAITool } from './types.ts';

/** The date every template sees unless the caller injects another: renders never read the real clock. */
export const DEFAULT_NOW = new Date('2026-01-15T09:30:00Z');

export interface RenderInput {
  messages: ChatMessage[];
  tools?: OpenAITool[];
  addGenerationPrompt?: boolean;
  /** The injected clock: `strftime_now(...)` and `date_string` come from it (UTC). Default DEFAULT_NOW. */
  now?: Date;
  bosToken?: string;
  eosToken?: string;
  /**
   * Extra template variables (e.g. `enable_thinking`, `tools_in_user_message`). They override everything,
   * including the injected globals; `{ date_string: undefined }` removes the default `date_string`.
   */
  extra?: Record<string, unknown>;
  /** A budget shared with other renders (template check), besides the per-render one. */
  allowance?: RenderAllowance;
}

const jsonCopy = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

const MAX_RANGE = 1_000_000;

function range(start: number, stop?: number, step = 1): number[] {
  if (stop === undefined || stop === null) [start, stop] = [0, start];
  if (![start, stop, step].every((x) => Number.isInteger(x))) throw new TypeError('range() arguments must be integers');
  if (step === 0) throw new Error('range() arg 3 must not be zero');
  const length = Math.max(0, Math.ceil((stop - start) / step));
  if (length > MAX_RANGE) throw new EngineUnsupported(`range() with more than ${MAX_RANGE} items (refused)`);
  return Array.from({ length }, (_, i) => start + i * step);
}

/**
 * The globals transformers gives a chat template, with the clock injected. We build the environment ourselves
 * (instead of Template.render) because the engine's built-in `strftime_now` reads the real clock in local time
 * and declaring it again raises "Variable already declared".
 */
function globals(now: Date): Record<string, unknown> {
  return {
    true: true,
    false: false,
    none: null,
    True: true,
    False: false,
    None: null,
    range,
    raise_exception: (message: unknown) => {
      throw new TemplateRaise(String(message ?? ''));
    },
    strftime_now: (format: unknown) => strftime(now, String(format ?? '')),
  };
}

/**
 * Render a chat template the way transformers' `apply_chat_template` does (jinja2 semantics, trim_blocks and
 * lstrip_blocks), deterministically. Throws TemplateError: `unparseable`, `engine_unsupported`, `raised`
 * (the template's raise_exception, with its message) or `render_error`.
 */
export function renderChat(source: string, input: RenderInput): string {
  const now = input.now ?? DEFAULT_NOW;
  if (!(now instanceof Date) || Number.isNaN(now.getTime()))
    throw new TypeError('renderChat: `now` must be a valid Date');
  const compiled = compileTemplate(source);
  const variables: Record<string, unknown> = {
    ...globals(now),
    // A JSON round trip drops keys whose value is undefined: to a Python template they do not exist.
    messages: jsonCopy(input.messages),
    // Absent tools stay undefined (not None), as with llama.cpp; `{% for t in tools %}` then iterates nothing.
    ...(input.tools !== undefined ? { tools: jsonCopy(input.tools) } : {}),
    add_generation_prompt: input.addGenerationPrompt ?? false,
    bos_token: input.bosToken ?? '<s>',
    eos_token: input.eosToken ?? '</s>',
    // Llama-3.x templates read `date_string` (llama.cpp passes it); it comes from the injected clock too.
    date_string: strftime(now, '%d %b %Y'),
    ...input.extra,
  };
  return runTemplate(compiled, variables, input.allowance);
}
