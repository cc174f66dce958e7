import type { Summary } from '../report/summary.ts';

/** What answered a probe run's requests, as its header records it: the simulator, a test model, or a model. */
export type AnsweredBy = 'simulator' | 'test_model' | 'model';

/** From the header's `simulated` flag and its engine's `test_model` flag (random weights on a real engine). */
export function answeredBy(s: Pick<Summary, 'header'>): AnsweredBy {
  if (s.header.simulated) return 'simulator';
  return s.header.engine?.test_model ? 'test_model' : 'model';
}

/** The sentence after the lineup's caption: what its numbers can and cannot say. */
export const LINEUP_CAVEAT: Record<AnsweredBy, string> = {
  simulator: ' Simulator run: these numbers describe the harness, not a model.',
  test_model:
    " Test model run (random weights): these numbers show the axes' mechanics, not how well a model calls tools.",
  model: '',
};

/** The suffix of a chart's title. */
export const CHART_TAG: Record<AnsweredBy, string> = {
  simulator: ' — simulator',
  test_model: ' — test model',
  model: '',
};
