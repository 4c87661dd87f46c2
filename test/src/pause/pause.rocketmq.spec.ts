import { rocketMqBroker } from '../support/rocketmq-fixtures';
import { describeScenarios } from '../support/scenarios';
import { PAUSE_SCENARIOS } from './pause.scenarios';

// Before pause() held dispatch, 8 of 8 messages sent after the pause were handled here: the broker answers a held
// long poll as soon as a message arrives.
describeScenarios('pause', PAUSE_SCENARIOS, rocketMqBroker());
