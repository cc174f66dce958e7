import { describe, expect, it } from 'vitest';
import { commitNativeMemoryOnDemand, NATIVE_ALLOCATOR_ENV } from './native-allocator.ts';

describe('the native allocator setting', () => {
  it('asks for memory committed on demand, and keeps a value the user set', () => {
    const env: NodeJS.ProcessEnv = {};
    commitNativeMemoryOnDemand(env);
    expect(env[NATIVE_ALLOCATOR_ENV]).toBe('0');
    const mine: NodeJS.ProcessEnv = { [NATIVE_ALLOCATOR_ENV]: '1' };
    commitNativeMemoryOnDemand(mine);
    expect(mine[NATIVE_ALLOCATOR_ENV]).toBe('1');
  });
});
