// The engine child's llama.cpp binding, loaded without node-llama-cpp's binary test process.
//
// getLlama() of node-llama-cpp 3.21.1 forks a separate Node process on Linux to test-load a prebuilt binary before
// loading it (bindings/getLlama.js, getShouldTestBinaryBeforeLoading), so that an incompatible binary cannot crash
// the caller's process: about 0.35 CPU-s per engine start. The engine child is already that separate process (a crash
// there is reported by the host), so here the child takes the steps getLlama takes for a prebuilt CPU binary itself,
// leaving out only the test. It does so only when everything it relies on is as in 3.21.1 (the pinned version,
// harness/engine/resolve.ts); otherwise, or if any step fails, it calls getLlama as before. docs/engine.md.
// (A module.register hook answering for testBindingBinary.js instead saved almost nothing: its hooks thread takes
// part in every module load of node-llama-cpp.)
// Plain JavaScript: it runs in the child, under bare `node`.

import { createRequire } from 'node:module';
import path from 'node:path';

/** The internal modules of node-llama-cpp 3.21.1's dist/ that getLlama takes its steps from. */
const MODULES = {
  config: 'config.js',
  getLlama: 'bindings/getLlama.js',
  llama: 'bindings/Llama.js',
  compile: 'bindings/utils/compileLLamaCpp.js',
  clone: 'bindings/utils/cloneLlamaCppRepo.js',
  platform: 'bindings/utils/getPlatform.js',
  platformInfo: 'bindings/utils/getPlatformInfo.js',
  folder: 'bindings/utils/getBuildFolderNameForBuildOptions.js',
  cmake: 'bindings/utils/resolveCustomCmakeOptions.js',
  canUse: 'bindings/utils/getCanUsePrebuiltBinaries.js',
  gpus: 'bindings/utils/getGpuTypesToUseForOption.js',
  glibc: 'bindings/utils/detectGlibc.js',
  resolve: 'bindings/utils/resolveActualBindingBinaryPath.js',
  release: 'bindings/utils/binariesGithubRelease.js',
  lock: 'utils/waitForLockfileRelease.js',
};

/** The getLlama options this path reproduces exactly; any other option goes through getLlama. */
const HANDLED = new Set(['gpu', 'build', 'maxThreads', 'logLevel', 'logger']);

/**
 * A Llama for `options` (getLlama's), and which way it was made: 'prebuilt' (the binary loaded here, untested) or
 * 'getLlama'. `dist` is the URL of node-llama-cpp's dist/ folder, whose internal modules this reads.
 */
export async function loadLlama(lib, options, dist) {
  let llama;
  try {
    llama = await loadPrebuilt(lib, options, dist);
  } catch {
    llama = undefined; // a layout or a step unlike 3.21.1's: getLlama's own way
  }
  if (llama) return { llama, via: 'prebuilt' };
  return { llama: await lib.getLlama(options), via: 'getLlama' };
}

const fn = (mod, name) => {
  if (typeof mod[name] !== 'function') throw new Error(`node-llama-cpp has no ${name}`);
  return mod[name];
};

/** getLlamaForOptions → loadExistingLlamaBinary of 3.21.1 for a prebuilt CPU binary on Linux, without the test. */
async function loadPrebuilt(lib, options, dist) {
  if (Object.keys(options).some((k) => !HANDLED.has(k)) || options.gpu !== false || options.build !== 'never')
    return undefined;
  const m = Object.fromEntries(
    await Promise.all(Object.entries(MODULES).map(async ([k, rel]) => [k, await import(new URL(rel, dist).href)])),
  );
  const { config } = m;
  const { Llama } = m.llama;
  // The same module instances as the package's entry: the Llama made here is the one its classes expect.
  if (Llama !== lib.Llama || m.getLlama.getLlama !== lib.getLlama || typeof Llama._create !== 'function')
    return undefined;
  const platform = fn(m.platform, 'getPlatform')();
  if (platform !== 'linux') return undefined; // elsewhere getLlama tests no prebuilt CPU binary: nothing to save
  const arch = process.arch;
  const cloned = await fn(m.clone, 'getClonedLlamaCppRepoReleaseInfo')();
  if (!(await fn(m.canUse, 'getCanUsePrebuiltBinaries')())) return undefined;
  const gpus = await fn(m.gpus, 'getGpuTypesToUseForOption')(false, { platform, arch });
  if (gpus.length !== 1 || gpus[0] !== false) return undefined;
  const platformInfo = await fn(m.platformInfo, 'getPlatformInfo')();
  if (typeof config.builtinLlamaCppGitHubRepo !== 'string' || typeof m.release.builtinLlamaCppRelease !== 'string')
    return undefined;
  const llamaCpp = {
    repo: cloned?.llamaCppGithubRepo ?? config.builtinLlamaCppGitHubRepo,
    release: cloned?.tag ?? m.release.builtinLlamaCppRelease,
  };
  if (!(await fn(m.glibc, 'detectGlibc')({ platform }))) return undefined;
  const buildOptions = {
    customCmakeOptions: fn(m.cmake, 'resolveCustomCmakeOptions')({}),
    progressLogs: 'stderr',
    platform,
    platformInfo,
    arch,
    gpu: false,
    llamaCpp,
  };
  const folder = await fn(m.folder, 'getBuildFolderNameForBuildOptions')(buildOptions);
  if (typeof config.llamaLocalBuildBinsDirectory !== 'string') return undefined;
  await fn(
    m.lock,
    'waitForLockfileRelease',
  )({
    resourcePath: path.join(config.llamaLocalBuildBinsDirectory, folder.withCustomCmakeOptions),
  });
  // A local build is what getLlama would load first, under rules of its own.
  if ((await fn(m.compile, 'getLocalBuildBinaryPath')(folder.withCustomCmakeOptions)) != null) return undefined;
  const found = await fn(m.compile, 'getPrebuiltBinaryPath')(buildOptions, folder.withoutCustomCmakeOptions);
  if (found == null) return undefined;
  const buildMetadata = await fn(m.compile, 'getPrebuiltBinaryBuildMetadata')(found.folderPath, found.folderName);
  const resolveBinary = fn(m.resolve, 'resolveActualBindingBinaryPath');
  const bindingPath = await resolveBinary(found.binaryPath);
  const extBackendsPath = found.extBackendsPath == null ? undefined : await resolveBinary(found.extBackendsPath);
  const { defaultLlamaVramPadding, defaultLlamaRamPadding } = m.getLlama;
  if (typeof defaultLlamaVramPadding !== 'function' || typeof defaultLlamaRamPadding !== 'function') return undefined;
  return Llama._create({
    bindings: loadBinding(bindingPath),
    bindingPath,
    extBackendsPath,
    buildType: 'prebuilt',
    buildMetadata,
    logLevel: options.logLevel ?? config.defaultLlamaCppLogLevel,
    logger: options.logger ?? Llama.defaultConsoleLogger,
    maxThreads: options.maxThreads,
    vramPadding: defaultLlamaVramPadding,
    ramPadding: defaultLlamaRamPadding,
    skipLlamaInit: false,
    debug: config.defaultLlamaCppDebugMode,
    numa: false,
    tempDir: false,
    experimentalOptions: undefined,
  });
}

/** The binding module, as getLlama's loadBindingModule loads it: out of require's cache, so each load is its own. */
function loadBinding(bindingPath) {
  const require = createRequire(import.meta.url);
  const forget = () => delete require.cache[require.resolve(bindingPath)];
  forget();
  try {
    return require(bindingPath);
  } finally {
    forget();
  }
}
