import { BrokerError } from '../errors/broker.error';

/**
 * A send to a topic that has no route: RocketMQ's "No route info of this topic" (TOPIC_NOT_EXIST), with what a
 * newcomer needs next, since the first send to a topic nobody created is where a real cluster first says no.
 */
export function noRouteError(topic: string, retriable: boolean): BrokerError {
  return new BrokerError(
    `No route info of this topic: ${topic} (create it first: admin.createTopic, \`mqkit topic create\` or ` +
      "mqadmin updateTopic; or set the broker's autoCreateTopicEnable=true)",
    { responseCode: 17, retriable, kind: 'topic-not-found' },
  );
}
