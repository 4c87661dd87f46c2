import { AUTO_CREATE_TOPIC, DEFAULT_TOPIC_QUEUE_NUMS } from '../client/send-message.codec';
import { parseTopicRoute, routeRequest, type TopicRoute } from '../client/topic-route.codec';
import { ResponseCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { NameServerClient } from './name-server.client';

/**
 * The route a producer uses for a topic the name server does not know (DefaultMQProducerImpl's fallback): TBW102's
 * route, which only brokers with autoCreateTopicEnable carry, with each queue count capped at
 * defaultTopicQueueNums (4). A send there makes the broker create the topic. Undefined when TBW102 has no route
 * (every broker refuses auto-creation) or no name server answers.
 */
export async function defaultTopicRoute(
  nameServers: NameServerClient,
  timeoutMs: number,
): Promise<TopicRoute | undefined> {
  let response: RemotingCommand;
  try {
    response = await nameServers.request(routeRequest(AUTO_CREATE_TOPIC), timeoutMs);
  } catch {
    return undefined;
  }
  if (response.code !== ResponseCode.SUCCESS) return undefined;
  const route = parseTopicRoute(response, AUTO_CREATE_TOPIC);
  return {
    ...route,
    orderTopicConf: undefined,
    queueDatas: route.queueDatas.map((q) => ({
      ...q,
      readQueueNums: Math.min(DEFAULT_TOPIC_QUEUE_NUMS, q.readQueueNums),
      writeQueueNums: Math.min(DEFAULT_TOPIC_QUEUE_NUMS, q.writeQueueNums),
    })),
  };
}
