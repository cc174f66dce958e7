// Imported for its effect by what runs sandboxed tools (the ToolHop suite; the optimizer, a command that is not a
// suite): the kit's runtimes make their sandbox with harness/sandbox. Other runs never load it (harness/kit/runtime.ts).
import { createSandbox } from '../sandbox/index.ts';
import { connectSandbox } from '../sandbox/remote.ts';
import { provideSandbox } from './runtime.ts';

provideSandbox({ create: createSandbox, connect: connectSandbox });
