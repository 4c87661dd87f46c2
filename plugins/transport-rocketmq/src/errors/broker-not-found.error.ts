import { MqkitError } from '@mqkit/core';

/**
 * No route names a master (or any member) of this broker group: it is down, or not yet registered with the name
 * server. Retriable: the route is asked for again, as RocketMQ's "The broker[x] not exist" is retried.
 */
export class BrokerNotFoundError extends MqkitError {
  readonly brokerName: string;

  constructor(brokerName: string, topic: string) {
    super(`broker ${brokerName} (topic ${topic}) has no address in any route`, {
      code: 'BROKER_NOT_FOUND',
      retriable: true,
    });
    this.brokerName = brokerName;
  }
}
