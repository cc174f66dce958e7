import { describe, expect, it } from 'vitest';
import { commContract, COMM_FORMATS, DELEGATION_MARKER, parseDelegations, parseReport } from '../agent/team/index.ts';
import type { ChatMessage } from '../core/chat.ts';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import { toolhopReply } from './sim-policy.ts';
import type { SimReply } from '../sim/server.ts';
import { BUNDLED_SAMPLE, loadDatasetFile } from './dataset.ts';
import { FINALIZER_SYSTEM_PROMPT, systemPrompt, userPrompt } from './prompts.ts';
import type { ToolhopRow } from './row.ts';
import { roleSystemPrompt } from './team.ts';
import { teamToolhopReply } from './team-sim.ts';
import { toolEntries, toolsPayload } from './tools.ts';

const rows = loadDatasetFile(BUNDLED_SAMPLE).entries.flatMap((e) => (e.ok ? [e.row] : []));
const ctx = (agent = 'solver') => ({ instance: 'toolhop:x', agent, trial: 0 });

/** Drive a reply function like the tool loop does, answering each tool call with a placeholder. */
function converse(
  reply: (messages: ChatMessage[]) => SimReply,
  system: string,
  row: ToolhopRow,
  user = userPrompt(row.question),
): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
  for (let turn = 0; turn < 10; turn++) {
    const r = reply(messages);
    messages.push({
      role: 'assistant',
      content: r.content,
      ...(r.tool_calls?.length ? { tool_calls: r.tool_calls } : {}),
    });
    if (!r.tool_calls?.length) return messages;
    for (const c of r.tool_calls) messages.push({ role: 'tool', tool_call_id: c.id, content: '"r"' });
  }
  throw new Error('no answer');
}

describe('teamToolhopReply', () => {
  it('answers a single-agent conversation exactly as the single-agent policy does, under every ToolHop policy', () => {
    const single = systemPrompt('single', { withContract: true });
    for (const model of [
      'sim:oracle',
      'sim:wrong',
      'sim:untagged',
      'sim:naive',
      'sim:coin?p=0.5',
      'sim:flaky?rate=0',
    ]) {
      const spec = parsePolicySpec(model);
      for (const row of rows) {
        const tools = toolsPayload(toolEntries(row));
        const a = converse((m) => toolhopReply(spec, row, m, tools, ctx()), single, row);
        const b = converse((m) => teamToolhopReply(spec, row, m, tools, ctx()), single, row);
        expect(b, `${model} row ${row.id}`).toEqual(a);
      }
    }
    const finalizer = [
      { role: 'system' as const, content: FINALIZER_SYSTEM_PROMPT },
      { role: 'user' as const, content: 'x' },
    ];
    expect(teamToolhopReply(parsePolicySpec('sim:oracle'), rows[0]!, finalizer, [], ctx())).toEqual({
      content: `<answer>${rows[0]!.answer}</answer>`,
    });
  });

  it('writes the requested report, with the answer after it only for a role that answers', () => {
    const spec = parsePolicySpec('sim:oracle');
    for (const row of rows.slice(0, 4)) {
      const tools = toolsPayload(toolEntries(row));
      for (const fmt of COMM_FORMATS) {
        for (const answers of [true, false]) {
          const system = roleSystemPrompt(
            'Any role text, however an optimizer rewrote it.',
            commContract(fmt),
            answers,
          );
          const final = converse((m) => teamToolhopReply(spec, row, m, tools, ctx('w')), system, row).at(-1)!.content!;
          const where = `${fmt} answers=${answers} row ${row.id}`;
          expect(final.includes('<answer>'), where).toBe(answers);
          if (answers) expect(final.endsWith(`<answer>${row.answer}</answer>`), where).toBe(true);
          const report = parseReport(final.replace(/<answer>[\s\S]*<\/answer>/, ''), fmt);
          expect(report.ok, `${where}: ${report.errors.join('; ')}`).toBe(true);
          if (fmt !== 'freeform') expect(report.report!.answer_candidate, where).toBe(row.answer);
          else if (!answers) expect(final, where).toContain(`Candidate answer: ${row.answer}`);
        }
      }
    }
  });

  it('answers a delegation request with one block per listed worker, which the team parses', () => {
    const row = rows[1]!;
    const request = `${userPrompt(row.question, `${DELEGATION_MARKER}\n\nWorkers: planner_worker, caller_worker, validator_worker\n\nTools: …`)}`;
    const msgs: ChatMessage[] = [
      { role: 'system', content: 'manager' },
      { role: 'user', content: request },
    ];
    const workers = ['planner_worker', 'caller_worker', 'validator_worker'];
    const ok = teamToolhopReply(parsePolicySpec('sim:oracle'), row, msgs, undefined, ctx('manager'));
    const found = parseDelegations(ok.content!, workers);
    expect([...found.keys()]).toEqual(workers);
    for (const e of toolEntries(row)) expect(found.get('caller_worker')).toContain(e.runtimeName);
    const garbled = teamToolhopReply(
      parsePolicySpec('sim:fault?cause=format_failure'),
      row,
      msgs,
      undefined,
      ctx('manager'),
    );
    expect(parseDelegations(garbled.content!, workers).size).toBe(0);
  });

  it('garbles reports under sim:fault?cause=format_failure but keeps the answer', () => {
    const spec = parsePolicySpec('sim:fault?cause=format_failure');
    const row = rows[2]!;
    const tools = toolsPayload(toolEntries(row));
    for (const fmt of ['semi_structured', 'structured'] as const) {
      const final = converse(
        (m) => teamToolhopReply(spec, row, m, tools, ctx()),
        roleSystemPrompt('r', commContract(fmt), true),
        row,
      ).at(-1)!.content!;
      expect(parseReport(final.replace(/<answer>[\s\S]*<\/answer>/, ''), fmt).ok, fmt).toBe(false);
      expect(final.endsWith(`<answer>${row.answer}</answer>`)).toBe(true);
    }
  });
});
