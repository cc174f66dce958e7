import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox, type SandboxBackend } from './index.ts';

// The import allow-list of docs/toolhop.md ("Tools"): decimal is on it; of urllib only urllib.parse is.
const fn = (body: string) =>
  `def f():\n${body
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;

describe.each<SandboxBackend>(['pyodide', 'python'])('import allow-list (%s)', (backend) => {
  const sb = createSandbox({ backend, poolSize: 1 });
  afterAll(() => sb.close());
  const call = (body: string) => sb.call({ rowId: 'imports', index: 0, name: 'f', sources: [fn(body)] }, '{}');

  it('allows decimal and urllib.parse', async () => {
    expect(await call('import decimal\nreturn str(decimal.Decimal("1.10") + decimal.Decimal("2.2"))')).toMatchObject({
      kind: 'ok',
      content: '"3.30"',
    });
    expect(await call('from urllib.parse import quote\nreturn quote("a b")')).toMatchObject({
      kind: 'ok',
      content: '"a%20b"',
    });
    expect(await call('from urllib import parse\nreturn parse.quote("x/y z")')).toMatchObject({
      kind: 'ok',
      content: '"x/y%20z"',
    });
  });

  it('refuses the rest of urllib and modules off the list', async () => {
    for (const body of [
      'import urllib.request\nreturn 1',
      'from urllib import request\nreturn 1',
      'import shutil\nreturn 1',
      'import pickle\nreturn 1',
    ]) {
      const o = await call(body);
      expect(o, body).toMatchObject({ kind: 'exception', excType: 'ImportError' });
      expect((o as { message: string }).message).toMatch(/is not allowed in ToolHop snippets/);
    }
  });
});
