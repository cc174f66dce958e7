// Imported for its effect by what runs sandboxed tools (the ToolHop suite; the optimizer, a command that is not a
// suite): the kit's runtimes make their sandbox with harness/sandbox. Other runs never load it (harness/kit/runtime.ts).
// A run's test worker connects to the sandbox its main process serves: the local pool (harness/sandbox/index.ts, with
// its launchers and execa) loads only where one is made.
import { deferredSandbox } from '../sandbox/deferred.ts';
import { connectSandbox } from '../sandbox/remote.ts';
import { provideSandbox } from './runtime.ts';

provideSandbox({
  create: (options) =>
    deferredSandbox(options.backend, async () => (await import('../sandbox/index.ts')).createSandbox(options)),
  connect: connectSandbox,
});
