import type { RunConfig } from '../../core/config.ts';
import { UsageError } from '../../core/errors.ts';
import type { EvalTool } from './types.ts';

/**
 * Tools known only once something is started (an MCP server's tool list): an eval's `tools` may hold sources beside
 * plain tools. The suite asks each source for a lease per case, so a source decides whether cases share a server or
 * each get their own, and closes every source when the run ends.
 */
export interface EvalToolSource {
  /** Says what this is (`mcp server 'memory'`), in errors and in the run's config. */
  readonly toolSource: string;
  /** The tools for one case (the run's config at hand); the lease is released when the case ends, however it ends. */
  acquire(run: RunConfig): Promise<ToolLease>;
  /** Stops whatever the source started (idempotent). */
  close(): Promise<void>;
}

export interface ToolLease {
  tools: readonly EvalTool[];
  /**
   * Why the source broke during the case (a server that died or went silent), if it did: the case is then a harness
   * error, whatever the task made of the tool errors it saw.
   */
  failure(): string | undefined;
  /** What the source changed or left out of what it was given (a schema replaced, a tool refused): in the trace. */
  notes?(): readonly string[];
  release(): Promise<void>;
}

/** What an eval's `tools` may be: its own tools and tool sources, in one list. */
export type EvalTools = readonly (EvalTool | EvalToolSource)[];

export function isToolSource(x: EvalTool | EvalToolSource): x is EvalToolSource {
  return typeof (x as EvalToolSource).toolSource === 'string' && typeof (x as EvalToolSource).acquire === 'function';
}

/** A name for each entry of `tools`, for the run's config: a tool's name, a source's label. */
export function toolLabels(tools: EvalTools): string[] {
  return tools.map((t) => (isToolSource(t) ? t.toolSource : t.name));
}

/**
 * One case's tools: every source leased, the tools put in list order. Two tools with one name are refused with one
 * line naming both owners; leases taken so far are released on any failure.
 */
export async function leaseTools(
  evalName: string,
  tools: EvalTools,
  run: RunConfig,
): Promise<{ tools: EvalTool[]; failure(): string | undefined; notes: string[]; release(): Promise<void> }> {
  const leases: ToolLease[] = [];
  const release = async () => {
    await Promise.allSettled(leases.map((l) => l.release()));
  };
  try {
    const out: EvalTool[] = [];
    const owner = new Map<string, string>();
    for (const t of tools) {
      let batch: readonly EvalTool[];
      let who: string;
      if (isToolSource(t)) {
        const lease = await t.acquire(run);
        leases.push(lease);
        batch = lease.tools;
        who = t.toolSource;
      } else {
        batch = [t];
        who = 'the eval';
      }
      for (const tool of batch) {
        const first = owner.get(tool.name);
        if (first !== undefined)
          throw new UsageError(
            `describeEval ${evalName}: the tool name '${tool.name}' is given by ${first} and by ${who}; rename one (mcp({ prefix }) prefixes a server's tools)`,
          );
        owner.set(tool.name, who);
        out.push(tool);
      }
    }
    return {
      tools: out,
      failure: () => leases.map((l) => l.failure()).find((f) => f !== undefined),
      notes: leases.flatMap((l) => l.notes?.() ?? []),
      release,
    };
  } catch (err) {
    await release();
    throw err;
  }
}

/** Closes every source of the list (errors ignored: closing is best effort at the run's end). */
export async function closeToolSources(tools: EvalTools): Promise<void> {
  await Promise.allSettled(tools.filter(isToolSource).map((s) => s.close()));
}
