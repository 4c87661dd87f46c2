import { rocketMqBroker } from '../support/rocketmq-fixtures';
import { describeScenarios } from '../support/scenarios';
import { PRODUCE_CONSUME_SCENARIOS } from './produce-consume.scenarios';

describeScenarios('produce and consume', PRODUCE_CONSUME_SCENARIOS, rocketMqBroker());
