import { rocketMqBroker } from '../support/rocketmq-fixtures';
import { describeScenarios } from '../support/scenarios';
import { RETRY_DLQ_SCENARIOS } from './retry-dlq.scenarios';

// The test brokers' delay levels are all 1 s, so each retry takes about a second.
describeScenarios('retry and dead letters (CONCURRENTLY)', RETRY_DLQ_SCENARIOS, rocketMqBroker());
