// Apart from suite.ts, which loads the runner: `bfcl rescore` checks its gate against these without loading it.

/** What a gate may name in a BFCL summary (a run's or a rescore's). */
export const BFCL_METRIC_NAMES = [
  'overall',
  'overall_in_scope',
  'accuracy.*',
  'group.*',
  'layers.*',
  'attribution.*',
  'toolgauge.*',
  'error_rate',
];
