import type { RunConfig } from '../core/config.ts';
import { readMazeConfig } from '../maze/config.ts';
import { mazeSimResponder } from '../maze/sim-responder.ts';
import { probeSimResponder } from '../probe/sim-responder.ts';
import type { Responder, SimKnowledge } from '../sim/server.ts';
import { loadDatasetFile } from '../toolhop/dataset.ts';
import type { ToolhopRow } from '../toolhop/row.ts';
import { resolveDataSource } from '../toolhop/source.ts';

/**
 * The gold data the simulator may use, loaded from the same sources the suites read (never from requests).
 * ToolHop rows are loaded on first use, so a maze-only run never touches the ToolHop data.
 */
export function simKnowledge(cfg: RunConfig): { knowledge: SimKnowledge; responders: Record<string, Responder>; ready: () => Promise<void> } {
  let rows: Map<string, ToolhopRow> | undefined;
  let loading: Promise<void> | undefined;
  const ready = () =>
    (loading ??= resolveDataSource(cfg).then((src) => {
      rows = new Map();
      for (const e of loadDatasetFile(src.path).entries) if (e.ok) rows.set(e.id, e.row);
    }));
  // Start loading now; requests only arrive after tests have loaded the same file.
  void ready().catch(() => undefined);
  return {
    // A request can only come after the suite loaded the same file, but wait for our copy all the same.
    knowledge: { toolhop: async (id) => (await ready().then(() => rows?.get(id))) },
    responders: {
      maze: mazeSimResponder(readMazeConfig().casesDir),
      probe: probeSimResponder(cfg),
    },
    ready,
  };
}
