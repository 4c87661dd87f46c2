import { embeddedBroker } from '../support/fixtures';
import { describeScenarios } from '../support/scenarios';
import { RETRY_DLQ_SCENARIOS } from './retry-dlq.scenarios';

describeScenarios('retry and dead letters (CONCURRENTLY)', RETRY_DLQ_SCENARIOS, embeddedBroker());
