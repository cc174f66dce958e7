import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';
// @ts-expect-error a plain JavaScript module (the engine child's, run under bare `node`)
import { loadLlama } from './load-llama.mjs';

// The engine child's binding loader on stand-in layouts of node-llama-cpp's dist/ (no native code here): with the
// internal modules as in 3.21.1 it loads the prebuilt binary itself; with anything else it goes through getLlama.
// That the real 3.21.1 takes the first way, starting no process, is host.test.ts's.

/**
 * The modules loadLlama reads, as 3.21.1 has them (stand-ins answering as on Linux x64 with no local build); DIR
 * stands for the folder they are written to.
 */
function layout(): Record<string, string> {
  return {
    'index.js': `export { Llama } from './bindings/Llama.js'; export { getLlama } from './bindings/getLlama.js';`,
    'config.js': `export const builtinLlamaCppGitHubRepo = 'ggml-org/llama.cpp';
      export const defaultLlamaCppDebugMode = false;
      export const defaultLlamaCppLogLevel = 'warn';
      export const llamaLocalBuildBinsDirectory = 'DIR/localBuilds';`,
    'bindings/getLlama.js': `export const calls = [];
      export async function getLlama(options) { calls.push(options); return { made: 'getLlama' }; }
      export const defaultLlamaVramPadding = () => 0;
      export const defaultLlamaRamPadding = () => 0;`,
    'bindings/Llama.js': `export const created = [];
      export class Llama {
        static defaultConsoleLogger() {}
        static async _create(args) { created.push(args); return { made: 'prebuilt' }; }
      }`,
    'bindings/utils/compileLLamaCpp.js': `export async function getLocalBuildBinaryPath() { return null; }
      export async function getPrebuiltBinaryPath(buildOptions, folderName) {
        return { binaryPath: 'DIR/bins/addon.cjs', folderName, folderPath: 'DIR/bins', extBackendsPath: undefined };
      }
      export async function getPrebuiltBinaryBuildMetadata() { return { buildOptions: {} }; }`,
    'bindings/utils/cloneLlamaCppRepo.js': 'export async function getClonedLlamaCppRepoReleaseInfo() { return null; }',
    'bindings/utils/getPlatform.js': `export function getPlatform() { return 'linux'; }`,
    'bindings/utils/getBuildFolderNameForBuildOptions.js': `export async function getBuildFolderNameForBuildOptions() {
        return { withCustomCmakeOptions: 'linux-x64', withoutCustomCmakeOptions: 'linux-x64' };
      }`,
    'bindings/utils/resolveCustomCmakeOptions.js': 'export function resolveCustomCmakeOptions() { return new Map(); }',
    'bindings/utils/getCanUsePrebuiltBinaries.js': 'export async function getCanUsePrebuiltBinaries() { return true; }',
    'bindings/utils/getGpuTypesToUseForOption.js':
      'export async function getGpuTypesToUseForOption() { return [false]; }',
    'bindings/utils/detectGlibc.js': 'export async function detectGlibc() { return true; }',
    'bindings/utils/getPlatformInfo.js': `export async function getPlatformInfo() { return { name: 'Ubuntu', version: '22.04' }; }`,
    'bindings/utils/resolveActualBindingBinaryPath.js':
      'export async function resolveActualBindingBinaryPath(p) { return p; }',
    'bindings/utils/binariesGithubRelease.js': `export const builtinLlamaCppRelease = 'b1234';`,
    'utils/waitForLockfileRelease.js': 'export async function waitForLockfileRelease() {}',
    'bins/addon.cjs': `module.exports = { addon: 'stand-in' };`,
  };
}

/** A stand-in dist/ folder: 3.21.1's layout with `changes` (a file's new text, or null to leave it out). */
async function standIn(changes: Record<string, string | null> = {}) {
  const dir = tempDir('load-llama');
  const files = { ...layout(), ...changes };
  for (const [rel, text] of Object.entries(files)) {
    if (text === null) continue;
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text.replaceAll('DIR', dir));
  }
  const at = (rel: string) => import(pathToFileURL(join(dir, rel)).href);
  return {
    dist: pathToFileURL(`${dir}/`),
    lib: await at('index.js'),
    getLlamaCalls: (await at('bindings/getLlama.js')).calls as unknown[],
    created: files['bindings/Llama.js'] === null ? [] : ((await at('bindings/Llama.js')).created as unknown[]),
    binaryPath: join(dir, 'bins', 'addon.cjs'),
  };
}

const logger = () => {};
const OPTIONS = { gpu: false, build: 'never', maxThreads: 1, logLevel: 'warn', logger } as const;

describe('loadLlama', () => {
  it("on 3.21.1's layout loads the prebuilt binary itself, with the arguments getLlama gives Llama._create", async () => {
    const s = await standIn();
    const { llama, via } = await loadLlama(s.lib, { ...OPTIONS }, s.dist);
    expect(via).toBe('prebuilt');
    expect(llama).toEqual({ made: 'prebuilt' });
    expect(s.getLlamaCalls).toEqual([]);
    expect(s.created).toHaveLength(1);
    expect(s.created[0]).toMatchObject({
      bindings: { addon: 'stand-in' },
      bindingPath: s.binaryPath,
      extBackendsPath: undefined,
      buildType: 'prebuilt',
      buildMetadata: { buildOptions: {} },
      logLevel: 'warn',
      logger,
      maxThreads: 1,
      skipLlamaInit: false,
      debug: false,
      numa: false,
      tempDir: false,
    });
  });

  const others: [string, Record<string, string | null>, Record<string, unknown>?][] = [
    [
      'no internal modules at all',
      Object.fromEntries(
        Object.keys(layout())
          .filter((f) => f !== 'index.js' && !f.endsWith('getLlama.js') && !f.endsWith('Llama.js'))
          .map((f) => [f, null]),
      ),
    ],
    ['a function renamed', { 'bindings/utils/compileLLamaCpp.js': 'export async function findPrebuiltBinary() {}' }],
    [
      'an entry whose Llama is another class',
      { 'index.js': `export class Llama {} export { getLlama } from './bindings/getLlama.js';` },
    ],
    ['another platform', { 'bindings/utils/getPlatform.js': `export function getPlatform() { return 'mac'; }` }],
    [
      'a local build present (getLlama loads it first)',
      {
        'bindings/utils/compileLLamaCpp.js': layout()['bindings/utils/compileLLamaCpp.js']!.replace(
          'getLocalBuildBinaryPath() { return null; }',
          `getLocalBuildBinaryPath() { return '/local/llama-addon.node'; }`,
        ),
      },
    ],
    [
      'no prebuilt binary',
      {
        'bindings/utils/compileLLamaCpp.js': layout()['bindings/utils/compileLLamaCpp.js']!.replace(
          /return \{ binaryPath[^}]*\};/,
          'return null;',
        ),
      },
    ],
    [
      'other GPU types to try',
      {
        'bindings/utils/getGpuTypesToUseForOption.js': `export async function getGpuTypesToUseForOption() { return ['vulkan', false]; }`,
      },
    ],
    ['no glibc', { 'bindings/utils/detectGlibc.js': 'export async function detectGlibc() { return false; }' }],
    [
      'Llama._create failing',
      {
        'bindings/Llama.js': `export const created = [];
          export class Llama { static async _create(args) { created.push(args); throw new Error('no'); } }`,
      },
    ],
    ['an option it does not reproduce', {}, { gpu: 'auto' }],
    ['another option it does not reproduce', {}, { numa: true }],
  ];
  it.each(others)('with %s goes through getLlama with the options as given', async (_, changes, extra = {}) => {
    const s = await standIn(changes);
    const options = { ...OPTIONS, ...extra };
    const { llama, via } = await loadLlama(s.lib, options, s.dist);
    expect(via).toBe('getLlama');
    expect(llama).toEqual({ made: 'getLlama' });
    expect(s.getLlamaCalls).toHaveLength(1);
    expect(s.getLlamaCalls[0]).toBe(options);
  });
});
