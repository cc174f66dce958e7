import type { FrozenToolSearcher } from './index.ts';
export function loadFrozenToolSearcher(_file: string, _level: '2' | '3'): FrozenToolSearcher {
  throw new Error('not implemented yet');
}
