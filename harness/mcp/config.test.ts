// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are configuration values with ${VAR} placeholders
import { describe, expect, it } from 'vitest';
import { serverFromFile } from './config.ts';

const file = (doc: unknown) => () => JSON.stringify(doc);

describe('serverFromFile', () => {
  it("reads a client's mcpServers entry (stdio or URL), filling ${VAR} from the environment", () => {
    const doc = {
      mcpServers: {
        mem: {
          command: 'npx',
          args: ['-y', 'server-memory'],
          env: { TOKEN: '${T}', MODE: '${M:-fast}' },
          type: 'stdio',
        },
        web: { url: 'http://127.0.0.1:9/mcp', headers: { authorization: 'Bearer ${T}' } },
      },
    };
    expect(serverFromFile('c.json', 'mem', { T: 'secret-1' }, file(doc))).toEqual({
      command: 'npx',
      args: ['-y', 'server-memory'],
      env: { TOKEN: 'secret-1', MODE: 'fast' },
    });
    expect(serverFromFile('c.json', 'web', { T: 't' }, file(doc))).toEqual({
      url: 'http://127.0.0.1:9/mcp',
      headers: { authorization: 'Bearer t' },
    });
  });
  it('names the file, the server and the field in one line', () => {
    const doc = { mcpServers: { a: { command: 'x', env: { K: '${UNSET}' } }, b: { args: [] } } };
    expect(() => serverFromFile('c.json', 'a', {}, file({ mcpServers: { a: doc.mcpServers.a } }))).toThrow(
      'mcp: c.json: mcpServers.a: environment variable UNSET is not set',
    );
    expect(() => serverFromFile('c.json', 'z', {}, file({ mcpServers: { a: doc.mcpServers.a } }))).toThrow(
      "mcp: c.json has no server 'z' in mcpServers (it has: a)",
    );
    expect(() => serverFromFile('c.json', 'b', {}, file(doc))).toThrow(/^mcp: c\.json: mcpServers\.b: /);
    expect(() => serverFromFile('c.json', 'a', {}, () => '{')).toThrow(/^mcp: c\.json: not valid JSON/);
    expect(() => serverFromFile('c.yaml', 'a', {}, () => 'mcpServers: [a\n')).toThrow(
      /^mcp: c\.yaml: not valid YAML: \S/,
    );
    expect(() =>
      serverFromFile('gone.json', 'a', {}, () => {
        throw Object.assign(new Error('x'), { code: 'ENOENT' });
      }),
    ).toThrow("mcp: cannot read the config file 'gone.json' (ENOENT)");
  });
});
