import { embeddedBroker } from '../support/fixtures';
import { describeScenarios } from '../support/scenarios';
import { ORDERLY_SCENARIOS } from './orderly.scenarios';

describeScenarios('ORDERLY consumption', ORDERLY_SCENARIOS, embeddedBroker());
