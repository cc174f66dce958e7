import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEAM_TOPOLOGIES } from '../agent/team/index.ts';
import { fromRoot } from '../core/paths.ts';
import type { KnownRolePrompt } from './sim-member.ts';

/**
 * The bundled role prompts (harness/toolhop/prompts/<topology>/<role>.txt) as the simulator matches them against a
 * system prompt: each trimmed, so a prompt with the output contract or a communication contract around it still
 * contains it. Read once, when the first request without an agent header arrives.
 */
export function bundledRolePrompts(dir = fromRoot('harness', 'toolhop', 'prompts')): KnownRolePrompt[] {
  const out: KnownRolePrompt[] = [];
  for (const topology of TEAM_TOPOLOGIES) {
    let files: string[];
    try {
      files = readdirSync(join(dir, topology)).filter((f) => f.endsWith('.txt'));
    } catch {
      continue;
    }
    for (const f of files.sort()) {
      const text = readFileSync(join(dir, topology, f), 'utf8').trim();
      if (text) out.push({ topology, role: f.slice(0, -'.txt'.length), text });
    }
  }
  return out;
}
