#!/usr/bin/env -S MALLOC_ARENA_MAX=1 node --max-semi-space-size=2
// The toolgauge command. From the installed package it runs the built JavaScript in dist/; in a checkout of the
// repository (the TypeScript sources are there) it loads the CLI from a cached bundle of the sources, with no build
// step (bin/cli-bundle.mjs).
//
// One glibc malloc arena for the process (and the processes it starts, which inherit it): with an arena per thread
// (the eval thread, V8's helpers), a 182-row ToolHop run's CLI process ended about 8-10 MiB larger (PSS).
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { fileURLToPath } from 'node:url';

// `parse` runs the same few hundred small parser functions over every line of a short-lived process: with V8's
// default inlining the optimizing compiler spent more CPU in the first tens of thousands of lines (large inlined
// graphs, compiled on its threads, counted in the process's CPU) than its code saved there. Without inlining the
// command costs about a sixth less CPU at 50,000 lines, and no more in the steady state (bench/parse.ts,
// docs/benchmarks.md). V8 reads the flag when it optimizes a function, so setting it before anything runs is enough.
// `bfcl rescore` is the same kind of process (the checker, parsers and scorers over a few thousand results): there
// the flag cut the process's CPU by about a seventh on 1,566 results (1.05 s instead of 1.22), outputs unchanged.
const rescore = process.argv[2] === 'bfcl' && process.argv[3] === 'rescore';
if (process.argv[2] === 'parse' || rescore) setFlagsFromString('--no-turbo-inlining');
// A rescore's process is short (about a second of CPU): V8's optimizing compiler, on its own threads, took about a
// quarter of it (perf), compiling functions that ran only a few thousand times more after that. A larger profiler
// budget (about 15× V8's default) optimizes only what stays hot: about a fifth less CPU on 1,566 single-turn results,
// about 8% on 100 multi-turn ones (their two Python processes per case unchanged), outputs unchanged
// (docs/benchmarks.md, "BFCL: `toolgauge bfcl rescore` beside BFCL's own evaluator").
if (rescore) setFlagsFromString('--interrupt-budget=1000000');
// `eval` is Vitest's main process, which holds every test's state until the run ends and then finalizes the run:
// with V8's default the old generation grew up to fourfold between full collections, and at 10^5 cases the process
// peaked at about 750 MiB where growing by half of what survives kept it near 520 (docs/benchmarks.md, "Scale").
// V8 reads the flag whenever it sets the next limit, so it is handed to the CLI and set once Vitest is loaded
// (harness/core/late-v8-flags.ts): V8 refuses Node's built-in code cache once any of its flags differs from the
// values Node was built with, and every Node module loaded after that is compiled from source. For the same reason
// `eval` sets the shebang's semi-space size back to V8's default: it is read once, when this thread's heap is set up,
// and still holds for that heap. Medians: 0.06 CPU-s less for an `eval` of 4 cases, 0.4 for 2,000, the process's
// peak RSS unchanged at both. Not for the suites' commands: their process peaked about 16 MiB higher over a 182-row
// ToolHop run with the reset.
// The commands that render chat templates in bulk (`template check`; `probe` and the simulator's probe responder)
// get the template engine's flag, RENDER_V8_FLAGS in harness/templates/engine.ts (why, and its figures, there; this
// file loads before any TypeScript, so the value is written out here and tests/e2e/template-v8-flags.test.ts holds
// the two equal). Handed over and set once the command's modules are loaded, before its renders.
const RENDERS_TEMPLATES = ['probe', 'template', 'sim'];
const lateV8Flags = [
  ...(process.argv[2] === 'eval' ? ['--heap-growing-percent=50'] : []),
  ...(RENDERS_TEMPLATES.includes(process.argv[2]) ? ['--max-valid-polymorphic-map-count=32'] : []),
];
if (process.argv[2] === 'eval' && process.execArgv.includes('--max-semi-space-size=2'))
  setFlagsFromString('--max-semi-space-size=0');
const fromSource = existsSync(fileURLToPath(new URL('../harness/cli/main.ts', import.meta.url)));
const main = fromSource
  ? await (await import('./cli-bundle.mjs')).loadCli()
  : (await import('../dist/harness/cli/main.js')).main;
process.exitCode = await main(process.argv.slice(2), undefined, { lateV8Flags });
