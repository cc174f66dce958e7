// Victim selection (docs/maze.md), shared by the engine (live) and the judge (replaying a saved trace):
// C1 — the fixed victim; C2 — first touch: the first candidate of the slot the agent calls becomes the victim,
// the other candidates stay clean for the rest of the run; C3 — first touch among the paths' perturbed entry
// tools; C4 — the same, independently per slot. Only calls that reach a tool count as touches (malformed
// argument JSON and unknown tool names never reach one).

import type { MazeTask, Victim } from './task.ts';

export interface Activation {
  group: string;
  victim: Victim;
  /** Trace index of the call that activated it. */
  at: number;
}

export class VictimTracker {
  private readonly groups = new Map<string, Victim[]>();
  private readonly active = new Map<string, Activation>();

  constructor(task: MazeTask) {
    for (const v of task.victims) {
      const list = this.groups.get(v.group) ?? [];
      list.push(v);
      this.groups.set(v.group, list);
    }
  }

  /** Record a call reaching tool `name`; returns the victim when the call goes to an activated victim. */
  touch(name: string, index: number): Victim | null {
    for (const [group, candidates] of this.groups) {
      const hit = candidates.find((c) => c.tool === name);
      if (!hit) continue;
      if (!this.active.has(group)) this.active.set(group, { group, victim: hit, at: index });
      const a = this.active.get(group)!;
      if (a.victim.tool === name) return a.victim;
    }
    return null;
  }

  activations(): Activation[] {
    return [...this.active.values()].sort((a, b) => a.at - b.at);
  }
}
