/**
 * The parse corpus: every model output kept as test data under fixtures/parse — the serving frameworks' own
 * parser-test strings (frameworks.json) first, then toolgauge's fixtures — each once, with a stable id. The parse
 * bench measures on it and the batch golden test pins the command's output on it.
 */
import { FIXTURE_ROOT, loadFixtures } from './fixtures.ts';
import { loadFrameworkCases } from './frameworks.ts';

export interface CorpusText {
  id: string;
  /** 'frameworks': a vLLM or llama.cpp parser-test string; 'fixtures': one of toolgauge's own fixtures */
  source: 'frameworks' | 'fixtures';
  text: string;
}

export function parseCorpus(root = FIXTURE_ROOT): CorpusText[] {
  return [
    ...loadFrameworkCases(root).map((f) => ({
      id: `frameworks/${f.id}`,
      source: 'frameworks' as const,
      text: f.case.text,
    })),
    ...loadFixtures(root).map((f) => ({ id: `fixtures/${f.id}`, source: 'fixtures' as const, text: f.text })),
  ];
}
