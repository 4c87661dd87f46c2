export { EmbeddedBroker, type EmbeddedBrokerOptions, type BrokerChannelHandlers } from './embedded-broker';
export { memoryTransport, type MemoryTransportOptions } from './memory.transport';
export { StoredMessage } from './broker/stored-message';
export { EmbeddedClusterAdmin, type EmbeddedAdminState } from './broker/embedded-cluster-admin';
