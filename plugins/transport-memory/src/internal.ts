export { ConsumeQueue } from './broker/consume-queue';
export { DelayScheduler } from './broker/delay-scheduler';
export { GroupRegistry } from './broker/group-registry';
export { LockTable } from './broker/lock-table';
export { offsetMsgIdOf } from './broker/stored-message';
