// The case-view contract and its pure helpers: what a suite imports to declare how `toolgauge view` shows its cases.
export type { CaseInput, CaseProblem, CaseView, SuiteCase } from './contract.ts';
export type { CaseDetail, CaseRow, CaseStatus, ScorerView, Section, ToolCallView, TurnView } from './model.ts';
export {
  callStats,
  contentText,
  conversationSections,
  isTruncated,
  MessageJson,
  ModelCallJson,
  modelCallsTable,
  prettyArgs,
  turnsOf,
} from './conversation.ts';
export { expectedCallsSection } from './expected-calls.ts';
export { arr, callsText, num, obj, pretty, readField, tagsOf, text, type Obj } from './values.ts';
