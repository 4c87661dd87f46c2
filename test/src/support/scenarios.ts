import { describe, it } from 'vitest';
import type { BrokerKind, TestBroker } from './test-broker';

/**
 * One feature's behaviour written once, as a function of the broker it runs on. A feature's folder registers its
 * scenarios twice: `<feature>.spec.ts` on the embedded broker (`embeddedBroker()` of fixtures.ts) and
 * `<feature>.rocketmq.spec.ts` on the run's real cluster (`rocketMqBroker()` of rocketmq-fixtures.ts; the global
 * setup starts the cluster for files named so).
 */
export interface Scenario {
  /** The test's title: what the feature does, true on both brokers. */
  readonly title: string;
  /** The test's timeout on each broker (a real cluster on a loaded box is slower). */
  readonly timeoutMs: Readonly<Record<BrokerKind, number>>;
  /** Runs the scenario; the broker, with everything made on it, is closed afterwards. */
  run(broker: TestBroker): Promise<void>;
}

/** Where `describeScenarios` runs its scenarios: each test gets a broker from `open()`. */
export interface BrokerSetup {
  readonly kind: BrokerKind;
  /** Named in the suite's title: "pause on the embedded broker". */
  readonly label: string;
  open(): Promise<TestBroker>;
}

/** Declares one test per scenario, each on a broker of its own from `setup`, closed after the test. */
export function describeScenarios(feature: string, scenarios: readonly Scenario[], setup: BrokerSetup): void {
  describe(`${feature} on ${setup.label}`, () => {
    for (const scenario of scenarios) {
      it(
        scenario.title,
        async () => {
          const broker = await setup.open();
          try {
            await scenario.run(broker);
          } finally {
            await broker.close();
          }
        },
        scenario.timeoutMs[setup.kind],
      );
    }
  });
}
