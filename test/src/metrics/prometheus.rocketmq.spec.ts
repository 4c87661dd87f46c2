import { rocketMqBroker } from '../support/rocketmq-fixtures';
import { describeScenarios } from '../support/scenarios';
import { PROMETHEUS_SCENARIOS } from './metrics-scenarios';

// The lag gauges read each queue's max offset from the brokers at scrape time (GET_MAX_OFFSET).
describeScenarios('Prometheus metrics, scraped over HTTP,', PROMETHEUS_SCENARIOS, rocketMqBroker());
