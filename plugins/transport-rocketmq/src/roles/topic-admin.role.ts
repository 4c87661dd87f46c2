import { ConfigurationError, TimeoutError, type TopicAdmin } from '@mqkit/core';
import { GROUP_MAX_LENGTH, IssueCollector, TOPIC_MAX_LENGTH, checkName } from '@mqkit/core/internal';
import { expectCode } from '../client/broker-response';
import { createTopicRequest } from '../client/create-topic.codec';
import { MASTER_ID, parseTopicRoute, routeRequest } from '../client/topic-route.codec';
import { ResponseCode } from '../protocol/remoting-codes';
import type { RocketMqSession } from '../transport/rocketmq-session';
import { targetMasters } from './cluster-brokers';

const POLL_MS = 100;

/**
 * `createTopic({ topic, queues })` as `mqadmin updateTopic -c <cluster>` does it: UPDATE_AND_CREATE_TOPIC on every
 * master the name server lists (or the named brokers), and on their slaves, then waits until the name server routes every queue of
 * every one of them (brokers register topic changes asynchronously), and refreshes this client's route, which
 * announces the topic on `changes$`.
 */
export class RocketMqTopicAdmin implements TopicAdmin {
  constructor(private readonly session: RocketMqSession) {}

  async createTopic(options: { topic: string; queues: number; brokers?: readonly string[] }): Promise<void> {
    const issues = new IssueCollector('createTopic');
    // Retry and DLQ topics may be longer (255), like group names with their prefix.
    const max = /^%(RETRY|DLQ)%/.test(options.topic) ? GROUP_MAX_LENGTH + 7 : TOPIC_MAX_LENGTH;
    checkName(issues, 'topic', options.topic, max);
    issues.intRange('queues', options.queues, 1, 1024);
    if (options.queues === undefined) issues.add('queues', undefined, 'an integer in [1, 1024]');
    if (issues.issues.length > 0) throw new ConfigurationError(issues.issues);
    const { session } = this;
    const { topic, queues } = options;
    const targets = await targetMasters(session, 'createTopic', options.brokers);
    for (const broker of targets) {
      const address = broker.brokerAddrs.get(MASTER_ID)!;
      expectCode(
        await session.request(address, createTopicRequest(topic, queues)),
        `create topic ${topic} on ${broker.brokerName}`,
        { brokerName: broker.brokerName },
      );
      // Slaves too: a slave copies topics from its master only every 60 s (SlaveSynchronize) and refuses pulls of
      // a topic it does not know yet; it takes UPDATE_AND_CREATE_TOPIC like a master. A slave that fails is
      // reported, not fatal: its next sync brings the topic.
      for (const [id, slave] of broker.brokerAddrs) {
        if (id === MASTER_ID) continue;
        try {
          expectCode(
            await session.request(slave, createTopicRequest(topic, queues)),
            `create topic ${topic} on ${broker.brokerName} slave ${id}`,
            { brokerName: broker.brokerName },
          );
        } catch (error) {
          session.events.emit('rocketmq.error', {
            where: 'create topic on slave',
            error: error as Error,
            address: slave,
          });
        }
      }
    }
    await this.waitForRoute(
      topic,
      queues,
      targets.map((b) => b.brokerName),
    );
    await session.routes.fetch(topic);
  }

  private async waitForRoute(topic: string, queues: number, brokers: readonly string[]): Promise<void> {
    const { session } = this;
    const deadline = Date.now() + session.options.createTopicTimeoutMs;
    for (;;) {
      const response = await session.nameServers.request(routeRequest(topic), session.options.requestTimeoutMs);
      if (response.code === ResponseCode.SUCCESS) {
        const route = parseTopicRoute(response, topic);
        const ready = brokers.every((name) =>
          route.queueDatas.some(
            (q) => q.brokerName === name && q.readQueueNums >= queues && q.writeQueueNums >= queues,
          ),
        );
        if (ready) return;
      } else if (response.code !== ResponseCode.TOPIC_NOT_EXIST) {
        expectCode(response, `route of topic ${topic}`);
      }
      if (Date.now() >= deadline)
        throw new TimeoutError(
          `topic ${topic} was created but the name server did not route all ${queues} queues of ${brokers.join(', ')} within ${session.options.createTopicTimeoutMs} ms`,
        );
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
