import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/paths.ts';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import { loadCases } from './cases/load.ts';
import type { ProbeCase } from './cases/types.ts';
import { FAMILIES, parseToolCalls, renderToolCalls } from '../parse/index.ts';
import { scoreTier } from '../calls/score/index.ts';
import {
  ABSTAIN_TEXT,
  behaviourFor,
  CONFUSED_TEXT,
  createProbeResponder,
  faultAffects,
  garbled,
  modelOutput,
  nearMiss,
  NO_TOOLS_TEXT,
  readPrompt,
  serverReply,
  SIM_DROPPING_TEMPLATE,
  wrongDecision,
} from './sim-responder.ts';
import { referenceTemplate, renderChat } from '../templates/index.ts';

const cases = loadCases(fromRoot('cases', 'probe', 'cases.jsonl'), { dateContext: '2026-01-15' }).cases;
const byId = new Map(cases.map((c) => [c.id, c]));
const carry = byId.get('c6_currency_carry_dev_000')!;
const tools = (c: ProbeCase) => c.tools.map((t) => t.function);
const passes = (c: ProbeCase, text: string, tier: 'strict' | 'lenient', format: (typeof FAMILIES)[number] | 'auto') => {
  const r = parseToolCalls(text, { tier, format, tools: tools(c) });
  return scoreTier(c, { calls: r.calls, attempted: r.attempted, truncated: r.truncated }).passed;
};

describe('the probe simulator reads the prompt like a model', () => {
  const hermes = referenceTemplate('hermes')!;
  it('sees the tools and its own prior call in a faithful render, misses the call when the template drops it', () => {
    const good = renderChat(hermes, { messages: carry.messages, tools: carry.tools, addGenerationPrompt: true });
    expect(readPrompt(carry, good)).toEqual({ missingTools: [], missingCalls: [] });
    const dropped = renderChat(SIM_DROPPING_TEMPLATE, {
      messages: carry.messages,
      tools: carry.tools,
      addGenerationPrompt: true,
    });
    expect(readPrompt(carry, dropped)).toEqual({ missingTools: [], missingCalls: ['convert_currency'] });
    expect(modelOutput('oracle', carry, dropped, 'hermes')).toBe(CONFUSED_TEXT);
    const noTools = renderChat(hermes, { messages: carry.messages, addGenerationPrompt: true });
    expect(readPrompt(carry, noTools).missingTools).toEqual(['convert_units']);
    expect(modelOutput('oracle', carry, noTools, 'hermes')).toBe(NO_TOOLS_TEXT);
  });

  it("a prior call's values elsewhere in the prompt do not count: they must sit in the assistant turn", () => {
    // The user's first message names amount and currencies; only the rendered call region may prove the call.
    const prompt = `tools: convert_currency convert_units\nuser: ${carry.messages[0]!.content}\nassistant: (nothing)\ntool: ${carry.messages[2]!.content}\nuser: ${carry.messages[3]!.content}\nconvert_currency 18 EUR JPY`;
    expect(readPrompt(carry, prompt).missingCalls).toEqual(['convert_currency']);
  });
});

describe('planted behaviours, on every case of the set', () => {
  const callCases = cases.filter((c) => c.expected);

  it('oracle: the native format of every family parses back, strictly, to a passing call', () => {
    for (const family of FAMILIES) {
      for (const c of callCases)
        expect(passes(c, renderToolCalls(c.expected!, family), 'strict', family), `${family} ${c.id}`).toBe(true);
    }
  });

  it('parser_gap: no family strict parser takes the near miss, the lenient tier recovers the right call', () => {
    for (const c of callCases) {
      const text = nearMiss(c.expected!, c.id);
      for (const family of ['hermes', 'llama_json', 'mistral'] as const) {
        expect(
          parseToolCalls(text, { tier: 'strict', format: family, tools: tools(c) }).calls,
          `${family} ${c.id}`,
        ).toEqual([]);
        expect(passes(c, text, 'lenient', family), `${family} ${c.id}: ${text}`).toBe(true);
      }
    }
  });

  it('format_failure: an attempt with markers that no tier recovers, and not a truncation', () => {
    for (const c of callCases) {
      const r = parseToolCalls(garbled(c.expected!), { tier: 'lenient', format: 'hermes', tools: tools(c) });
      expect([r.calls.length, r.attempted, r.truncated], c.id).toEqual([0, true, false]);
    }
  });

  it('decision_failure: a clean call (or clean abstention) that fails scoring on every case', () => {
    for (const c of cases) {
      const calls = wrongDecision(c);
      const obs = { calls: calls ?? [], attempted: !!calls, truncated: false };
      expect(scoreTier(c, obs).passed, c.id).toBe(false);
      if (calls) expect(passes(c, renderToolCalls(calls, 'hermes'), 'strict', 'hermes'), c.id).toBe(false);
    }
    const kinds = new Set(
      cases.map((c) =>
        wrongDecision(c) === null
          ? 'none'
          : c.expected && wrongDecision(c)![0]!.name !== c.expected[0]!.name
            ? 'tool'
            : 'args',
      ),
    );
    expect(kinds).toEqual(new Set(['none', 'tool', 'args']));
  });

  it('which cases a fault affects', () => {
    expect(faultAffects(carry, 'template_bug')).toBe(true);
    expect(faultAffects(byId.get('c1_weather_dev_000')!, 'template_bug')).toBe(false);
    const abst = cases.find((c) => c.expected === null)!;
    expect(faultAffects(abst, 'parser_gap')).toBe(false);
    expect(faultAffects(abst, 'decision_failure')).toBe(true);
    expect(
      modelOutput(
        'parser_gap',
        abst,
        'get_weather get_forecast book_hotel send_email send_sms post_chat_message get_definition translate_text search_web create_reminder add_todo set_alarm calculate convert_units',
        'hermes',
      ),
    ).toBe(ABSTAIN_TEXT);
  });

  it('policies: fault → its cause, wrong → decision failure, coin → seeded per case and trial', () => {
    expect(behaviourFor(parsePolicySpec('sim:fault?cause=parser_gap'), 'x', 0)).toBe('parser_gap');
    expect(behaviourFor(parsePolicySpec('sim:wrong'), 'x', 0)).toBe('decision_failure');
    expect(behaviourFor(parsePolicySpec('sim:oracle'), 'x', 0)).toBe('oracle');
    const coin = parsePolicySpec('sim:coin?p=0.5&seed=3');
    const picks = cases.map((c) => behaviourFor(coin, c.id, 0));
    expect(picks).toEqual(cases.map((c) => behaviourFor(coin, c.id, 0)));
    const share = picks.filter((p) => p === 'oracle').length / picks.length;
    expect(share).toBeGreaterThan(0.35);
    expect(share).toBeLessThan(0.65);
  });
});

describe('the simulated server (chat transport)', () => {
  it('its strict parser turns native calls into tool_calls and leaves anything else in content', () => {
    const r = serverReply(
      '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "Asia/Dubai"}}\n</tool_call>',
      'hermes',
      'x',
    );
    expect(r.content).toBeNull();
    expect(r.tool_calls?.map((t) => [t.function.name, JSON.parse(t.function.arguments)])).toEqual([
      ['get_time', { timezone: 'Asia/Dubai' }],
    ]);
    expect(serverReply('```json\n{"name": "get_time", "arguments": {}}\n```', 'hermes', 'x')).toEqual({
      content: '```json\n{"name": "get_time", "arguments": {}}\n```',
    });
  });

  it('under fault=template_bug its own template drops the prior call, so the oracle is confused; otherwise it answers', async () => {
    const responder = createProbeResponder({ lookup: (id) => byId.get(id), template: null });
    const ctx = { instance: `probe:${carry.id}`, id: carry.id, agent: '0', trial: 0 };
    const body = { model: 'sim:oracle', messages: carry.messages, tools: carry.tools };
    const ok = await responder.chat!(parsePolicySpec('sim:oracle'), body, ctx);
    expect(ok.tool_calls?.[0]?.function.name).toBe('convert_currency');
    const bug = await responder.chat!(parsePolicySpec('sim:fault?cause=template_bug'), body, ctx);
    expect(bug).toEqual({ content: CONFUSED_TEXT });
    expect(() => responder.completion!(parsePolicySpec('sim:oracle'), 'x', { ...ctx, id: 'nope' })).toThrow(
      /no probe case 'nope'/,
    );
  });
});
