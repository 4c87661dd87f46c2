import { MqkitError } from '@mqkit/core';

/**
 * A message needs a broker feature that the broker's release does not have (a timer message to a 4.x broker, a
 * priority to a broker before 5.4). Not retriable: another attempt would meet the same broker. The message was not
 * sent, so nothing was stored half right (a 4.x broker would deliver a timer message at once).
 */
export class BrokerReleaseError extends MqkitError {
  /** What the message asked for, e.g. `timer message (deliverTimeMs)`. */
  readonly feature: string;
  /** The first release that has it, e.g. `5.0.0`. */
  readonly since: string;
  readonly brokerName: string;
  /** The broker's release as its replies name it (MQVersion), e.g. `4.9.7`. */
  readonly brokerRelease: string;

  constructor(feature: string, since: string, brokerName: string, address: string, brokerRelease: string) {
    super(
      `${feature} needs RocketMQ ${since} or later; broker ${brokerName} (${address}) runs ${brokerRelease}, so the message was not sent`,
      { code: 'BROKER_RELEASE', retriable: false },
    );
    this.feature = feature;
    this.since = since;
    this.brokerName = brokerName;
    this.brokerRelease = brokerRelease;
  }
}
