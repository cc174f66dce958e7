/**
 * Test helper (imported only by *.test.ts): llama.cpp's own grammar parser and matcher, through node-llama-cpp,
 * as an oracle independent of toolgauge's recognizer. Null when node-llama-cpp is not installed.
 */
import { findNodeLlamaCpp } from '../engine/resolve.ts';

/** node-llama-cpp where the engine finds it (harness/engine/resolve.ts), else null. */
async function loadNodeLlamaCpp(): Promise<unknown> {
  const { found } = findNodeLlamaCpp();
  return found ? import(found.entry) : null;
}

export interface TestLlama {
  /** Compile a GBNF grammar with llama.cpp's parser; throws on a grammar it refuses. */
  compile(grammar: string): Promise<void>;
  /** Whether llama.cpp's grammar matcher accepts the whole text from the root. */
  accepts(grammar: string, text: string): Promise<boolean>;
}

type Grammar = { _testText(text: string): boolean };
type Llama = { createGrammar(o: { grammar: string }): Promise<Grammar> };

let loaded: Promise<TestLlama | null> | null = null;

export function loadLlamaForTests(): Promise<TestLlama | null> {
  loaded ??= (async () => {
    const mod = (await loadNodeLlamaCpp()) as { getLlama(o: Record<string, unknown>): Promise<Llama> } | null;
    if (!mod) return null;
    const llama = await mod.getLlama({ gpu: false, build: 'never', logLevel: 'error', progressLogs: false });
    const grammars = new Map<string, Promise<Grammar>>();
    const get = (g: string) => {
      let p = grammars.get(g);
      if (!p) grammars.set(g, (p = llama.createGrammar({ grammar: g })));
      return p;
    };
    return {
      compile: async (g) => void (await get(g)),
      // `_testText` is node-llama-cpp's binding of llama.cpp's grammar matcher (llama_grammar_accept over the
      // text, then whether the grammar may end there): internal to node-llama-cpp, pinned with its version.
      accepts: async (g, text) => (await get(g))._testText(text),
    };
  })();
  return loaded;
}
