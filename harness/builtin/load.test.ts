import { describe, expect, it } from 'vitest';
import { suiteNamed } from '../kit/registry.ts';
import { BUILTIN_SUITES } from './index.ts';
import { BUILTIN_SUITE_NAMES, loadBuiltinSuites } from './load.ts';

describe('loadBuiltinSuites', () => {
  it('loads the suites TOOLGAUGE_SUITES names (unknown names skipped), or all when it is unset', async () => {
    expect((await loadBuiltinSuites({ TOOLGAUGE_SUITES: 'maze' })).map((s) => s.name)).toEqual(['maze']);
    expect(suiteNamed('maze')?.aggregator).toBeDefined();
    expect((await loadBuiltinSuites({ TOOLGAUGE_SUITES: 'probe, my-eval' })).map((s) => s.name)).toEqual(['probe']);
    expect(await loadBuiltinSuites({ TOOLGAUGE_SUITES: '' })).toEqual([]);
    expect((await loadBuiltinSuites({})).map((s) => s.name)).toEqual([...BUILTIN_SUITE_NAMES]);
    expect(BUILTIN_SUITES.map((s) => s.name)).toEqual([...BUILTIN_SUITE_NAMES]);
    // the five suites toolgauge ships, each a folder of harness/ (an oracle kept apart from the registry)
    expect([...BUILTIN_SUITE_NAMES].sort()).toEqual(['apibank', 'bfcl', 'maze', 'probe', 'toolhop']);
  });
});
