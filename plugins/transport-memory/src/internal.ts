export { ConsumeQueue, type PullWaiter } from './broker/consume-queue';
export type { EmbeddedAdminState } from './broker/embedded-cluster-admin';
export type { BrokerOutages } from './broker/broker-outages';
export type { TopicStore } from './broker/topic-store';
export type { MessageIndex, StoredMessages } from './broker/message-index';
export { DelayScheduler } from './broker/delay-scheduler';
export { GroupRegistry } from './broker/group-registry';
export { LockTable } from './broker/lock-table';
export { offsetMsgIdOf } from './broker/stored-message';
