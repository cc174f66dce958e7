import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat.ts';
import { finalizerRequest, hasAnswerTag } from './prompts.ts';

describe('the final-answer call', () => {
  it('is needed only when the last message holds no <answer> tag (any case, across lines)', () => {
    expect(hasAnswerTag('so it is <answer>Paris</answer>')).toBe(true);
    expect(hasAnswerTag('<ANSWER>\n1984\n</Answer>')).toBe(true);
    expect(hasAnswerTag('the answer is Paris')).toBe(false);
    expect(hasAnswerTag('<answer>Paris')).toBe(false);
  });

  it('records the budget-exhausted turn and asks an extractor over the task and what the tools said', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You solve tasks.' },
      { role: 'user', content: 'Who wrote Dune?' },
      { role: 'assistant', content: 'Looking it up.' },
      { role: 'tool', content: 'Frank Herbert', tool_call_id: 'c1' },
    ];
    const r = finalizerRequest(messages);
    expect(r.pending.role).toBe('user');
    expect(r.pending.content).toMatch(/^The tool-call budget is exhausted\./);
    expect(r.call.map((m) => m.role)).toEqual(['system', 'user']);
    expect(r.call[0]!.content).toMatch(/^You are a strict answer extractor\./);
    expect(r.call[1]!.content).toMatch(
      /^Original task:\nWho wrote Dune\?\n\nAvailable observations and attempts:\nAssistant attempt: Looking it up\.\n\nTool observation: Frank Herbert\n\nInstruction: The tool-call budget is exhausted\./,
    );
    expect(messages).toHaveLength(4);
  });
});
