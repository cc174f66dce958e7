/** What the simulator's models list names as their owner (`owned_by`): how a run tells it answered. */
export const SIMULATOR_OWNER = 'toolgauge-simulator';
