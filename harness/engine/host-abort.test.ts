// A request aborted while the engine's child is still loading ends at once and is never sent to the child: sent
// after its signal had fired, nothing would ever stop it (a request stuck inside llama.cpp held its child for good).
// The child here is a stand-in (fixtures/engine/gated-child.mjs) that loads only when the test says so.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';
import { fromRoot } from '../core/paths.ts';
import { buildTestModel } from './gguf/test-model.ts';
import { EngineHost } from './host.ts';

describe('a request aborted while the child loads', () => {
  it('rejects with its reason at once; the child, once loaded, never sees it', async () => {
    const modelPath = join(tempDir('engine-abort'), 'm.gguf');
    writeFileSync(modelPath, buildTestModel({ type: 'F32', template: 'hermes', seed: 3 }));
    const host = new EngineHost(
      { modelPath, contextSize: 256 },
      {
        findEngine: () => ({ found: { entry: 'file:///unused', version: 'stand-in', dir: '/' }, wrongVersions: [] }),
        childScript: fromRoot('fixtures', 'engine', 'gated-child.mjs'),
      },
    );
    try {
      const ac = new AbortController();
      const first = host.complete({ prompt: 'first' }, { signal: ac.signal });
      await expect.poll(() => host.starts).toBe(1); // the child is forked and loading
      ac.abort(new Error('the deadline passed'));
      expect(host.loaded()).toBe(false);
      writeFileSync(`${modelPath}.go`, ''); // the child loads now: a request still waiting for it would be sent
      await expect(first).rejects.toThrow('the deadline passed');
      const second = (await host.complete({ prompt: 'second' })) as unknown as { received: string[] };
      expect(second.received).toEqual(['second']);
      expect(host.starts).toBe(1);
    } finally {
      await host.close();
    }
  });
});
