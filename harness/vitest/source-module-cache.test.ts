import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalConfig } from '../api/vitest-config.ts';
import { PACKAGE_ROOT } from '../core/paths.ts';
import { cachesSourceModules } from './source-module-cache.ts';

describe('the module cache of eval runs from the sources', () => {
  it('is kept for a root inside the repository, not for one outside it', () => {
    expect(cachesSourceModules(PACKAGE_ROOT)).toBe(true);
    expect(cachesSourceModules(join(PACKAGE_ROOT, 'examples'))).toBe(true);
    expect(cachesSourceModules(tmpdir())).toBe(false);
    expect(cachesSourceModules(`${PACKAGE_ROOT}-other`)).toBe(false);
  });

  it("is evalConfig's for the working directory (the unit tests run from the repository)", () => {
    expect(process.cwd()).toBe(PACKAGE_ROOT);
    expect(evalConfig().test.experimental).toEqual({ fsModuleCache: true });
  });
});
