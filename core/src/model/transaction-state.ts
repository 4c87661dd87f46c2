/** A local transaction's outcome, by RocketMQ's LocalTransactionState names (UNKNOW is Java's spelling). */
export type TransactionState = 'COMMIT_MESSAGE' | 'ROLLBACK_MESSAGE' | 'UNKNOW';
