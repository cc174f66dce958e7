// EngineHost: node-llama-cpp in a child process (a GGML assert on a bad file aborts the process it runs in).
import { EngineError, type Engine, type EngineOptions } from './types.ts';

export class EngineHost implements Engine {
  constructor(readonly options: EngineOptions) {}
  info(): never { throw new EngineError('request', 'EngineHost: not yet implemented'); }
  tokenize(): never { throw new EngineError('request', 'EngineHost: not yet implemented'); }
  detokenize(): never { throw new EngineError('request', 'EngineHost: not yet implemented'); }
  complete(): never { throw new EngineError('request', 'EngineHost: not yet implemented'); }
  nextTokenDistributions(): never { throw new EngineError('request', 'EngineHost: not yet implemented'); }
  async close(): Promise<void> {}
}
