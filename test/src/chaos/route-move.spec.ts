import type { ConsumerApp, RouteResolver, TransportPlugin } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { Subject, filter, merge } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

/**
 * A member that sees route changes late, as RocketMQ members do (each polls the name server on its own clock):
 * while frozen, its routes are the ones it had and it hears of no change; `thaw` gives it the fresh routes and the
 * changes it missed.
 */
class LaggingRoutes {
  readonly #frozen = new Map<string, readonly unknown[]>();
  readonly #missed = new Set<string>();
  readonly #thawed = new Subject<string>();
  #inner: RouteResolver | undefined;
  #freezing = false;

  transport(inner: TransportPlugin): TransportPlugin {
    return {
      ...inner,
      connect: async (context) => {
        const roles = await inner.connect(context);
        this.#inner = roles.routes;
        return { ...roles, routes: this.#wrap(roles.routes) };
      },
    };
  }

  async freeze(topics: readonly string[]): Promise<void> {
    for (const topic of topics) this.#frozen.set(topic, await this.#inner!.subscribeQueues(topic));
    this.#freezing = true;
  }

  thaw(): void {
    this.#freezing = false;
    this.#frozen.clear();
    for (const topic of this.#missed) this.#thawed.next(topic);
    this.#missed.clear();
  }

  #wrap(routes: RouteResolver): RouteResolver {
    return {
      ...routes,
      subscribeQueues: async (topic) =>
        (this.#freezing && (this.#frozen.get(topic) as Awaited<ReturnType<RouteResolver['subscribeQueues']>>)) ||
        routes.subscribeQueues(topic),
      changes$: merge(
        (routes.changes$ ?? new Subject<string>()).pipe(
          filter((topic) => {
            if (!this.#freezing || !this.#frozen.has(topic)) return true;
            this.#missed.add(topic);
            return false;
          }),
        ),
        this.#thawed,
      ),
    };
  }
}

const owned = (app: ConsumerApp, group: string, topic: string) =>
  app
    .consumer(group)
    .status()
    .queues.filter((q) => q.mq.topic === topic && q.state === 'active')
    .map((q) => `${q.mq.brokerName}/${q.mq.queueId}`)
    .sort();

describe('a route change the members see at different moments (embedded cluster of two)', () => {
  it('the member that sees it first waits before taking the queues it moves: no message is handled twice', async () => {
    harness = new Harness(fastBroker({ brokerNames: ['broker-a', 'broker-b'] }));
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 4 });
    const seen = new Deliveries();
    const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) =>
      seen.record(m.payload.seq),
    );
    const lags = [new LaggingRoutes(), new LaggingRoutes()];
    const apps: ConsumerApp[] = [];
    for (const lag of lags)
      apps.push(
        await harness.app([Handler], { transport: lag.transport(memoryTransport({ broker: harness.broker })) }),
      );
    await waitFor(() => apps.every((a) => owned(a, group, topic).length === 4), { message: 'four queues each' });
    // The member with broker-a's queues keeps two of them when broker-b leaves; the other two move to the member
    // that had broker-b's. The old owner sees the new route late.
    const old = apps.findIndex((a) => owned(a, group, topic).every((q) => q.startsWith('broker-a/')));
    expect(old).toBeGreaterThanOrEqual(0);
    await lags[old]!.freeze([topic]);
    harness.broker.crashBroker('broker-b');
    // Messages keep arriving on broker-a's queues while the old owner still consumes all four of them.
    let sent = 0;
    const lagMs = 500;
    const until = Date.now() + lagMs;
    while (Date.now() < until) {
      await harness.produce(topic, 40, { from: sent });
      sent += 40;
    }
    lags[old]!.thaw();
    await waitFor(() => apps.every((a) => owned(a, group, topic).length === 2), {
      timeoutMs: 20_000,
      message: "two of broker-a's queues each",
    });
    await harness.produce(topic, 400, { from: sent });
    sent += 400;
    await waitFor(() => seen.unique === sent, { timeoutMs: 20_000, message: `all ${sent} handled` });
    expect(seen.missing(sent)).toEqual([]);
    expect(seen.duplicates).toBe(0);
  }, 60_000);
});
