import {
  cellName,
  REFERENCE_BASELINE,
  resolveCell,
  sizeOfAgents,
  TOOLHOP_TEAM_DEFAULTS,
  type Cell,
} from '../toolhop/grid.ts';
import type { ToolhopSettings } from '../toolhop/settings.ts';

/**
 * Each method's part of the reference optimizer's experiment grid (MAS-PromptBench `optimizers/protocol/cells.py`),
 * for the suites toolgauge optimizes. There, GEPA and MIPRO cover every dataset on the five topologies at their
 * baseline team (r = 4, freeform; decentralized 2 rounds), and vary team size and communication format only on
 * HotpotQA, LiveCodeBench and BFCL; a cell outside a method's part stops with an error unless `--allow-any-cell`,
 * and such a job is non-conformant (its aggregation skips it unless asked). On ToolHop that leaves one cell per
 * topology in the grid. The grid's model axis (Qwen3.5-9B, Llama-3.1-8B) is not checked: toolgauge optimizes
 * whatever model it is given.
 */
export type GridMethod = 'gepa' | 'mipro';

/** Why a cell is outside `method`'s part of the grid on ToolHop, or null when it is in it. */
export function offOptimizerGrid(_method: GridMethod, c: Cell): string | null {
  if (c.topology === 'single') return null;
  const problems: string[] = [];
  const r = sizeOfAgents(c.topology, c.agents);
  if (r !== REFERENCE_BASELINE)
    problems.push(`team size ${r} (the grid varies team size on HotpotQA, LiveCodeBench and BFCL only)`);
  if (c.comm !== 'freeform')
    problems.push(`format ${c.comm} (the grid varies formats on HotpotQA, LiveCodeBench and BFCL only)`);
  const rounds = TOOLHOP_TEAM_DEFAULTS[c.topology].rounds;
  if (c.rounds !== rounds) problems.push(`${c.rounds} rounds (the grid runs ${rounds})`);
  return problems.length ? problems.join('; ') : null;
}

/** The optimized cell of a request's settings and why it is off the method's grid (null: in it). */
export function optimizerCell(method: GridMethod, s: ToolhopSettings): { cell: Cell; offGrid: string | null } {
  const cell = resolveCell(s);
  return { cell, offGrid: offOptimizerGrid(method, cell) };
}

/** The one-line refusal of an off-grid cell without `--allow-any-cell`. */
export function optimizerGridRefusal(method: GridMethod, c: Cell, why: string): string {
  return `toolgauge optimize: ${cellName(c)} is outside ${method}'s part of the reference's experiment grid on ToolHop: ${why}; pass --allow-any-cell to run it as a non-conformant job`;
}
