/** Internals shared with mqkit's own packages (bench, tests). Not a stable API for applications. */
export { balancedRendezvousOwners } from './strategies/balanced-rendezvous.strategy';
export { ConsistentHashRouter } from './strategies/consistent-hash-router';
export { md5Hash } from './hashing/md5-hash';
export { messageQueueString } from './hashing/message-queue-string';
export { javaUtf8Bytes } from './hashing/java-utf8';
export { fmix32, pairWeight, stringHash32 } from './hashing/rendezvous-hash';
export { membershipWalk, type MembershipChange, type WalkOptions } from './simulator/membership-walk';
export { runCli, type CliIo } from './cli/run-cli';
export { parseSimulateArgs, type SimulateCommand } from './cli/parse-simulate-args';
