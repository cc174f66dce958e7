// Agent teams: topologies composed of the tool loop, communication formats, the vote, costs. Generic: a suite
// supplies a TeamTask (prompts, answer extraction, tools) and a Roster.
export { runTeam, type TeamRun } from './team.ts';
export {
  lastAssistantContent,
  runMember,
  type MemberRun,
  type MemberRunner,
  type MemberSpec,
  type TeamTask,
} from './member.ts';
export {
  resolveTeamOptions,
  TEAM_DEFAULTS,
  TEAM_TOPOLOGIES,
  TeamOptionsInput,
  type Roster,
  type TeamOptions,
  type TeamTopology,
} from './options.ts';
export { majorityVote, voteKey, type Ballot, type VoteRecord } from './vote.ts';
export {
  COMM_FORMATS,
  COMM_MARKER,
  commContract,
  parseReport,
  renderReport,
  requestedCommFormat,
  Report,
  type CommFormat,
  type ParsedReport,
} from './comm.ts';
export { tallyParses, type Handoff, type ParseTally } from './handoff.ts';
export { addCosts, costOfLoop, teamCost, zeroCost, type Cost, type TeamCost } from './cost.ts';
export { loadRolePrompts, promptPath, type PromptSet } from './prompts.ts';
export { DELEGATION_FROM_MANAGER, DELEGATION_MARKER, delegationWorkers, parseDelegations } from './centralized.ts';
export { clipTail, fitChunks } from './context.ts';
