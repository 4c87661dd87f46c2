import { MqkitError } from './mqkit.error';

/**
 * `admin.consumerConnections` found no online member of the group on its brokers (RocketMQ's CONSUMER_NOT_ONLINE,
 * "the consumer group[...] not online"). Retriable: a member may connect.
 */
export class ConsumerNotOnlineError extends MqkitError {
  readonly group: string;

  constructor(group: string) {
    super(`consumer group ${group} has no member online`, { code: 'CONSUMER_NOT_ONLINE', retriable: true });
    this.group = group;
  }
}
