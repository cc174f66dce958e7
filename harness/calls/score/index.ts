// Layered single-call scoring (docs/probe.md): pure functions of a case and what a parser tier recovered.
export {
  scoreTier,
  CALL_LAYERS,
  LAYERED_METRICS,
  METRIC_DENOMINATORS,
  type Bit,
  type LayeredMetric,
  type LayeredScore,
  type ScoredCase,
  type TierObservation,
} from './score.ts';
export { matchCalls, type CallMatch, type CallPair } from '../../match/calls.ts';
export {
  compareArgs,
  compareValue,
  fuzzyEqual,
  parseIsoDatetime,
  textTokens,
  type Mismatch,
} from '../../match/rules.ts';
export { schemaErrors } from './schema.ts';
