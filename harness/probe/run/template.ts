import { sha256 } from '../../core/hash.ts';
import { readDataText } from '../../core/data-file.ts';
import type { ProbeCase } from '../cases/types.ts';
import type { Family } from '../../parse/index.ts';
import {
  applyShape,
  checkTemplate,
  chooseShape,
  detectFamily,
  referenceTemplate,
  renderChat,
  repairTemplate,
  SHAPES,
  type MessageShape,
  type TemplateCheck,
} from '../../templates/index.ts';

/**
 * A chat template made ready for a probe run, once per run: its defects (checkTemplate), the message shape that
 * keeps prior calls, its tool-call family, and — when it has findings and a repair exists — the repaired template
 * used for counterfactual re-asks. The family is read from what the template renders for a call (detectFamily),
 * the marker guess only when nothing renders.
 */
export interface PreparedTemplate {
  file: string;
  source: string;
  sha256: string;
  family: Family | null;
  shape: MessageShape;
  check: TemplateCheck;
  repaired: { source: string; sha256: string; family: Family | null; shape: MessageShape } | null;
}

/** The shape to render with: the one the check found keeps prior calls, else the first standard shape. */
function shapeOf(source: string, check?: TemplateCheck): MessageShape {
  const s = check ? check.shape : chooseShape(source).shape;
  return s ?? SHAPES[0]!;
}

export function prepareTemplateSource(source: string, file: string, now: Date): PreparedTemplate {
  const check = checkTemplate(source, { name: file, now });
  let repaired: PreparedTemplate['repaired'] = null;
  if (check.findings.length > 0) {
    const fixed = repairTemplate(source, check.findings);
    if (fixed !== null && fixed !== source) {
      repaired = { source: fixed, sha256: sha256(fixed), family: detectFamily(fixed), shape: shapeOf(fixed) };
    }
  }
  return {
    file,
    source,
    sha256: sha256(source),
    family: detectFamily(source),
    shape: shapeOf(source, check),
    check,
    repaired,
  };
}

const prepared = new Map<string, PreparedTemplate>();

/** Read and prepare a template file (memoised per process: every test file of a run shares it). */
export function prepareTemplate(file: string, now: Date): PreparedTemplate {
  const source = readDataText(file, 'the chat template');
  const key = `${sha256(source)}|${now.toISOString()}|${file}`;
  let p = prepared.get(key);
  if (!p) prepared.set(key, (p = prepareTemplateSource(source, file, now)));
  return p;
}

/** The clock a case is rendered with: its own reference date, else the run's injected date. */
export function caseNow(c: Pick<ProbeCase, 'date'>, injectedDate: string): Date {
  return new Date(`${c.date ?? injectedDate}T09:30:00Z`);
}

/** The prompt for a case: its messages in the template's shape, its tools, the generation prompt. Throws TemplateError. */
export function renderCase(
  source: string,
  shape: MessageShape,
  c: Pick<ProbeCase, 'messages' | 'tools'>,
  now: Date,
): string {
  return renderChat(source, {
    messages: applyShape(c.messages, shape),
    tools: c.tools,
    addGenerationPrompt: true,
    now,
  });
}

export const REFERENCE_TEMPLATE_LABEL = '(toolgauge reference template: hermes)';

/**
 * The template of a run: `--template FILE`, or for the completions transport without one toolgauge's reference
 * Hermes template; null for chat without `--template` (the server's template is unknown).
 */
export function resolveTemplate(
  s: { transport: 'chat' | 'completions'; templateFile: string | undefined },
  injectedDate: string,
): PreparedTemplate | null {
  const now = new Date(`${injectedDate}T09:30:00Z`);
  if (s.templateFile) return prepareTemplate(s.templateFile, now);
  if (s.transport === 'chat') return null;
  const source = referenceTemplate('hermes');
  if (!source) throw new Error('the reference Hermes template is missing');
  const key = `reference|${now.toISOString()}`;
  let p = prepared.get(key);
  if (!p) prepared.set(key, (p = prepareTemplateSource(source, REFERENCE_TEMPLATE_LABEL, now)));
  return p;
}
