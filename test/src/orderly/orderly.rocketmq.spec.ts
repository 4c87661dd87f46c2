import { rocketMqBroker } from '../support/rocketmq-fixtures';
import { describeScenarios } from '../support/scenarios';
import { ORDERLY_SCENARIOS } from './orderly.scenarios';

describeScenarios('ORDERLY consumption', ORDERLY_SCENARIOS, rocketMqBroker());
