import type { TopicRoute } from '../client/topic-route.codec';

/**
 * A canonical text of a route, so two answers compare equal when they route the same queues to the same addresses
 * whatever their order (RocketMQ's topicRouteData2TopicPublishInfo compares sorted lists the same way).
 */
export function routeFingerprint(route: TopicRoute | undefined): string {
  if (!route) return '';
  const queues = route.queueDatas
    .map((q) => `${q.brokerName}:${q.readQueueNums}:${q.writeQueueNums}:${q.perm}:${q.topicSysFlag}`)
    .sort();
  const brokers = route.brokerDatas
    .map(
      (b) =>
        `${b.brokerName}=${[...b.brokerAddrs.entries()]
          .sort((x, y) => x[0] - y[0])
          .map(([id, addr]) => `${id}@${addr}`)
          .join(',')}`,
    )
    .sort();
  return `${route.orderTopicConf ?? ''}|${queues.join(';')}|${brokers.join(';')}`;
}
