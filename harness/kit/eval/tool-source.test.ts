import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../core/config.ts';
import { closeToolSources, type EvalToolSource, leaseTools, toolLabels } from './tool-source.ts';
import type { EvalTool } from './types.ts';

const RUN = {} as RunConfig;

/** A source handing out the given tools, counting its leases' releases and its closes. */
function source(label: string, tools: EvalTool[], o: { fail?: string; broke?: string; notes?: string[] } = {}) {
  const seen = { released: 0, closed: 0 };
  const s: EvalToolSource = {
    toolSource: label,
    async acquire() {
      if (o.fail) throw new Error(o.fail);
      return {
        tools,
        failure: () => o.broke,
        notes: () => o.notes ?? [],
        release: async () => void seen.released++,
      };
    },
    close: async () => void seen.closed++,
  };
  return { s, seen };
}
const tool = (name: string): EvalTool => ({ name, run: () => name });

describe('leaseTools', () => {
  it("puts the eval's tools and each source's in list order, with the sources' notes and failures", async () => {
    const a = source("mcp server 'a'", [tool('a1'), tool('a2')], { notes: ['a: schema replaced'] });
    const b = source("mcp server 'b'", [tool('b1')], { broke: "mcp server 'b': exited" });
    const lease = await leaseTools('e', [tool('own'), a.s, b.s], RUN);
    expect(lease.tools.map((t) => t.name)).toEqual(['own', 'a1', 'a2', 'b1']);
    expect(lease.notes).toEqual(['a: schema replaced']);
    expect(lease.failure()).toBe("mcp server 'b': exited");
    await lease.release();
    expect([a.seen.released, b.seen.released]).toEqual([1, 1]);
    expect(toolLabels([tool('own'), a.s])).toEqual(['own', "mcp server 'a'"]);
  });
  it('refuses one name given twice, naming both owners, and releases what it had leased', async () => {
    const a = source("mcp server 'a'", [tool('x')]);
    const twice = source("mcp server 't'", [tool('y'), tool('y')]);
    await expect(leaseTools('e', [a.s, tool('x')], RUN)).rejects.toThrow(
      "describeEval e: the tool name 'x' is given by mcp server 'a' and by the eval; rename one",
    );
    expect(a.seen.released).toBe(1);
    await expect(leaseTools('e', [twice.s], RUN)).rejects.toThrow(
      "the tool name 'y' is given by mcp server 't' and by mcp server 't'",
    );
  });
  it('a source that cannot lease fails the lease; those before it are released; closing closes every source', async () => {
    const a = source("mcp server 'a'", [tool('x')]);
    const bad = source("mcp server 'bad'", [], { fail: "mcp server 'bad': lists no tools" });
    await expect(leaseTools('e', [a.s, bad.s], RUN)).rejects.toThrow("mcp server 'bad': lists no tools");
    expect(a.seen.released).toBe(1);
    await closeToolSources([a.s, tool('own'), bad.s]);
    expect([a.seen.closed, bad.seen.closed]).toEqual([1, 1]);
  });
});
