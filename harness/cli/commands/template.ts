import { readFileSync } from 'node:fs';
import { UsageError } from '../../core/errors.ts';
import { setLateV8Flags } from '../../core/late-v8-flags.ts';
import { checkTemplate, type Finding, type TemplateCheck } from '../../templates/check.ts';
import { shapeLabel } from '../../templates/shapes.ts';
import type { ChatMessage } from '../../templates/types.ts';
import { parseFlags, type FlagSpecs } from '../../kit/flags/flags.ts';

// toolgauge template check --template FILE [--json]
// Exit 0 whenever the check ran (with or without findings); bad flags or an unreadable file are UsageErrors.

export const USAGE = `toolgauge template check --template FILE [--json]

Checks one chat template for tool-calling defects, each with the message shape that triggers it and a minimal repro:
  render_budget_exceeded, tools_not_rendered, prior_tool_call_dropped, system_prompt_drops_tool_instructions,
  injected_date, doubled_braces, raises_on_standard_shape, template_unparseable.
Also reports the tool-call family the template writes (read back from a call it renders) and what the
JavaScript engine cannot render the way Python's jinja2 does (never reported as a defect). A render is
limited to 200,000 evaluation steps and 2 s: a template that loops longer is reported, not waited for.`;

// `short` and `multiple` are spelled out because parseFlags forwards them even when undefined, and node's
// parseArgs (Node 20) rejects an undefined `short` or `multiple`.
const CHECK_FLAGS: FlagSpecs = {
  template: { type: 'string', short: 't', multiple: false, description: 'the chat template (.jinja) to check' },
  json: { type: 'boolean', short: 'j', multiple: false, description: 'print the result as JSON' },
};

export interface TemplateIo {
  stdout: { write(chunk: string): unknown };
}

export async function run(argv: string[], io: TemplateIo = { stdout: process.stdout }): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'check') {
    throw new UsageError(`toolgauge template: unknown subcommand '${sub ?? ''}' (accepted: check)`);
  }
  const { values } = parseFlags('template check', rest, CHECK_FLAGS);
  const path = values.template;
  if (typeof path !== 'string' || path === '')
    throw new UsageError('toolgauge template check: --template FILE is required');
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UsageError(`toolgauge template check: --template cannot read '${path}' (${why})`);
  }
  // The flags this command's process handed over (bin/toolgauge.mjs), now that the template engine is loaded. The render budget's
  // clock (`performance`, loaded on first use) is loaded first, so that it still compiles with Node's code cache.
  void globalThis.performance;
  setLateV8Flags();
  const result = checkTemplate(source, { name: path });
  io.stdout.write(values.json ? `${JSON.stringify(toJson(path, result), null, 2)}\n` : toText(path, result));
  return 0;
}

/** The JSON report: template, sha256 and findings first (id, detail, repro), then everything else. */
export function toJson(path: string, r: TemplateCheck): Record<string, unknown> {
  return {
    template: path,
    sha256: r.sha256,
    findings: r.findings.map((f) => ({
      id: f.id,
      detail: f.detail,
      repro: f.repro,
      ...(f.shape ? { shape: f.shape } : {}),
    })),
    family: r.family,
    familyDetection: r.familyDetection,
    shape: r.shape,
    engineLimitations: r.engineLimitations,
    notes: r.notes,
    shapesTried: r.shapesTried,
  };
}

function summarise(m: ChatMessage): string {
  const calls = m.tool_calls?.map((c) => {
    const args = typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments);
    return `${c.function.name}(${args})${c.id !== undefined ? ` id=${c.id}` : ''}`;
  });
  const content =
    m.content === null
      ? 'null'
      : m.content === undefined
        ? '(absent)'
        : JSON.stringify(m.content.length > 60 ? `${m.content.slice(0, 60)}…` : m.content);
  const id = m.role === 'tool' && m.tool_call_id !== undefined ? ` tool_call_id=${m.tool_call_id}` : '';
  return `${m.role}: ${content}${calls ? ` calls ${calls.join(', ')}` : ''}${id}`;
}

function findingText(f: Finding): string {
  const lines = [`  - ${f.id}: ${f.detail}`];
  if (f.shape) lines.push(`      shape: ${shapeLabel(f.shape)}`);
  lines.push(
    `      repro${f.repro.tools ? ` (tools: ${f.repro.tools.map((t) => t.function.name).join(', ')})` : ' (no tools)'}:`,
  );
  for (const m of f.repro.messages) lines.push(`        ${summarise(m)}`);
  return lines.join('\n');
}

function familyLine(r: TemplateCheck): string {
  if (!r.family) return 'unknown (no known call format in what it renders or in its source)';
  const how =
    r.familyDetection.how === 'rendered'
      ? 'read back from a call it renders'
      : 'guessed from markers in its source (no rendered call)';
  return `${r.family} (${how}${r.familyDetection.verified ? '' : '; unverified: no reference template for this family'})`;
}

export function toText(path: string, r: TemplateCheck): string {
  const out = [
    `template: ${path}`,
    `sha256:   ${r.sha256}`,
    `family:   ${familyLine(r)}`,
    `shape:    ${r.shape ? shapeLabel(r.shape) : 'none keeps prior tool calls'}`,
    r.findings.length === 0 ? 'findings: none' : `findings (${r.findings.length}):`,
    ...r.findings.map(findingText),
  ];
  if (r.engineLimitations.length > 0) {
    out.push('engine limitations (not template defects):', ...r.engineLimitations.map((l) => `  - ${l}`));
  }
  if (r.notes.length > 0) out.push('notes:', ...r.notes.map((n) => `  - ${n}`));
  return `${out.join('\n')}\n`;
}
