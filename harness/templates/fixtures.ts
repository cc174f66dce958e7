import type { ChatMessage, OpenAITool } from './types.ts';

// The conversation every template is probed with. Its values are chosen so that detection is unambiguous:
// the argument value "Paris" appears nowhere but in the prior tool call (the user says "the French capital"),
// and nothing in it looks like a date or contains braces outside the tool result.

export const PROBE_TOOL_NAME = 'get_weather';
export const PROBE_TOOL_DESCRIPTION = 'Get the current weather for a city.';
export const PROBE_ARGUMENTS = { city: 'Paris', unit: 'celsius' };
/** The argument value whose presence shows that a prior call was kept. */
export const PROBE_ARGUMENT_VALUE = 'Paris';

/** The tool, with a description on every parameter (what most templates expect). */
export const PROBE_TOOL: OpenAITool = {
  type: 'function',
  function: {
    name: PROBE_TOOL_NAME,
    description: PROBE_TOOL_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'Name of the city' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'Temperature unit' },
      },
      required: ['city'],
    },
  },
};

/**
 * The same tool without parameter descriptions: the fallback when the engine cannot render the described one
 * (functionary's template loops over tuples for described parameters).
 */
export const PROBE_TOOL_PLAIN: OpenAITool = {
  type: 'function',
  function: {
    name: PROBE_TOOL_NAME,
    description: PROBE_TOOL_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
  },
};

export const QUESTION = "What's the weather like in the French capital right now?";
export const FOLLOW_UP = 'Should I take an umbrella tomorrow?';
export const SYSTEM_PROMPT = 'You are a concise assistant for travellers.';
export const TOOL_RESULT = '{"temperature": 21, "condition": "sunny"}';
export const FINAL_ANSWER = 'It is 21 degrees and sunny there.';

export const userMessage = (content = QUESTION): ChatMessage => ({ role: 'user', content });
export const systemMessage = (content = SYSTEM_PROMPT): ChatMessage => ({ role: 'system', content });

/** The call message as the OpenAI API returns it: string arguments, an id, content null. */
export function callMessage(id = 'call_0'): ChatMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id, type: 'function', function: { name: PROBE_TOOL_NAME, arguments: JSON.stringify(PROBE_ARGUMENTS) } },
    ],
  };
}

export function toolResultMessage(id = 'call_0'): ChatMessage {
  return { role: 'tool', tool_call_id: id, name: PROBE_TOOL_NAME, content: TOOL_RESULT };
}

/** A multi-turn tool history in the standard OpenAI shape: question, call, result, answer, next question. */
export function standardHistory(): ChatMessage[] {
  return [
    userMessage(),
    callMessage(),
    toolResultMessage(),
    { role: 'assistant', content: FINAL_ANSWER },
    userMessage(FOLLOW_UP),
  ];
}
