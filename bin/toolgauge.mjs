#!/usr/bin/env -S node --max-semi-space-size=2
// The toolgauge command. From the installed package it runs the built JavaScript in dist/; in a checkout of the
// repository (the TypeScript sources are there) it loads the CLI from a cached bundle of the sources, with no build
// step (bin/cli-bundle.mjs).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const fromSource = existsSync(fileURLToPath(new URL('../harness/cli/main.ts', import.meta.url)));
const main = fromSource
  ? await (await import('./cli-bundle.mjs')).loadCli()
  : (await import('../dist/harness/cli/main.js')).main;
process.exitCode = await main(process.argv.slice(2));
