export { EmbeddedBroker, type EmbeddedBrokerOptions, type BrokerChannelHandlers } from './embedded-broker';
export type { TransactionSettings } from './broker/half-messages';
export { memoryTransport, type MemoryTransportOptions } from './memory.transport';
export { StoredMessage } from './broker/stored-message';
export { EmbeddedClusterAdmin } from './broker/embedded-cluster-admin';
