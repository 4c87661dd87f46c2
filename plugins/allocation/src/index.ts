// Strategies: RocketMQ's, by their Java class names and getName() values, and mqkit's own.
export { AllocateMessageQueueAveragely } from '@mqkit/core';
export { AllocateMessageQueueAveragelyByCircle } from './strategies/averagely-by-circle.strategy';
export { AllocateMessageQueueConsistentHash } from './strategies/consistent-hash.strategy';
export { AllocateMessageQueueByConfig } from './strategies/by-config.strategy';
export { AllocateMessageQueueByMachineRoom } from './strategies/by-machine-room.strategy';
export { AllocateMachineRoomNearby, type MachineRoomResolver } from './strategies/machine-room-nearby.strategy';
export { AllocateMessageQueueBalancedRendezvous } from './strategies/balanced-rendezvous.strategy';

// Plugin
export {
  allocationStrategies,
  BUILT_IN_STRATEGY_NAMES,
  type AllocationStrategiesOptions,
} from './allocation-strategies.plugin';

// Simulator
export { simulate, defaultSimulatedStrategies, simulatedQueues } from './simulator/simulate';
export { formatTable } from './simulator/format-table';
export { renderSvg } from './simulator/render-svg';
export { SeededRandom } from './simulator/seeded-random';
export {
  DEFAULT_SIMULATION,
  type ScenarioResult,
  type SimulationOptions,
  type SimulationReport,
  type SimulationRun,
  type StrategySummary,
} from './simulator/simulation-types';
