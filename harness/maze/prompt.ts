// The conversation a Maze run starts from. Shared by the in-memory driver and the lead's HTTP agent loop so
// both give the model exactly the same instructions. Nothing here reveals paths, victims or the answer.

import type { ChatMessage } from '../core/chat.ts';
import type { MazeTask } from './task.ts';
import { LIBRARY_TODAY } from './tools/data.ts';

export const MAZE_SYSTEM_PROMPT = [
  `You complete the user's task by calling the tools provided. Today's date is ${LIBRARY_TODAY}.`,
  'Tools can fail or return data that is wrong; check each result before you use it.',
  'When you are done, give the final result inside <answer></answer>.',
  'If the task cannot be completed, say "Task aborted" and explain why instead of guessing.',
].join(' ');

export function mazeMessages(task: MazeTask): ChatMessage[] {
  return [
    { role: 'system', content: MAZE_SYSTEM_PROMPT },
    { role: 'user', content: task.query },
  ];
}
