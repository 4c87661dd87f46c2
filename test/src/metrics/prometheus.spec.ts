import { embeddedBroker } from '../support/fixtures';
import { describeScenarios } from '../support/scenarios';
import { PROMETHEUS_SCENARIOS } from './metrics-scenarios';

describeScenarios('Prometheus metrics, scraped over HTTP,', PROMETHEUS_SCENARIOS, embeddedBroker());
