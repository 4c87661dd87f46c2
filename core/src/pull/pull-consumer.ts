import { ClientHost } from '../app/client-host';
import { jsonCodec } from '../definition/json.codec';
import { IllegalStateError } from '../errors/state.error';
import type { Message } from '../model/message';
import { compareMessageQueues, mqKey, mqLabel, type MessageQueue } from '../model/message-queue';
import type { GroupContext } from '../consumer/queue/group-context';
import type { ProcessQueue } from '../consumer/queue/process-queue';
import type { BrokerCallbacks } from '../spi/transport.roles';
import { childController, parentController } from '../util/abort';
import { PausedQueues } from './paused-queues';
import { PollBuffer } from './poll-buffer';
import type { PullConsumerOptions, ResolvedPullConsumerOptions } from './pull-consumer-options';
import { runningStatus, type PullConsumerStatus } from './pull-consumer-status';
import { PullEngine } from './pull-engine';
import { pullGroupContext } from './pull-engine-setup';
import { pullSubscription } from './pull-subscription';
import { QueueNames } from './queue-names';
import { QueueSelection } from './queue-selection';
import { checkSeekOffset } from './seek-offset';

/**
 * RocketMQ's DefaultLitePullConsumer on mqkit's engine: the same pull loops, flow control, process queues,
 * progress owner, offset stores and rebalance as push consumers, with `poll()` where a push consumer calls a
 * handler. Subscribe to topics (queues allocated among the group's members, and rebalanced) or assign queues.
 * What poll returned counts as consumed: it is stored every autoCommitIntervalMs, or at `commit()` with autoCommit
 * off; a queue released or closed stores what was committed, so nothing uncommitted is ever stored. A queue poll
 * never returned messages of, and that was not sought, is never stored (its stored offset stays as it was).
 *
 * @example
 * ```ts
 * const consumer = await createPullConsumer({ transport, group: 'replay', autoCommit: false });
 * await consumer.assign(await consumer.queuesOf('orders'));
 * for await (const messages of consumer) {
 *   await save(messages);
 *   await consumer.commit();
 * }
 * ```
 */
export class PullConsumer implements AsyncIterable<Message[]> {
  readonly group: string;
  private readonly host: ClientHost;
  private readonly controller = parentController();
  private readonly runtimeController: AbortController;
  private readonly ctx: GroupContext;
  private readonly buffer: PollBuffer;
  private readonly names: QueueNames;
  private readonly selection = new QueueSelection(() => this.engine?.queues.active() ?? []);
  private readonly paused = new PausedQueues();
  private engine!: PullEngine;
  private closing: Promise<void> | undefined;
  private state: 'new' | 'running' | 'closed' = 'new';

  private constructor(
    private readonly options: PullConsumerOptions,
    private readonly resolved: ResolvedPullConsumerOptions,
  ) {
    this.group = resolved.group.group;
    this.host = new ClientHost('createPullConsumer', options);
    this.runtimeController = childController(this.controller.signal);
    this.buffer = new PollBuffer(options.codec ?? jsonCodec, resolved.namespace);
    this.names = new QueueNames(resolved.namespace);
    this.ctx = pullGroupContext(this.host, resolved, this.runtimeController.signal);
  }

  get clientId(): string {
    return this.host.clientId;
  }

  /** @internal createPullConsumer's first step: the constructor is private, so only mqkit makes pull consumers. */
  static create(options: PullConsumerOptions, resolved: ResolvedPullConsumerOptions): PullConsumer {
    return new PullConsumer(options, resolved);
  }

  /** @internal createPullConsumer's second step. */
  async start(): Promise<void> {
    const { host, ctx, options, resolved, buffer } = this;
    try {
      const transport = await host.connect(options.transport, this.callbacks());
      await host.register(options.plugins ?? []);
      const { subscriptions } = this.selection;
      this.engine = await PullEngine.open({
        host,
        ctx,
        options,
        resolved,
        transport,
        subscriptions,
        buffer,
        signal: this.controller.signal,
        whenRunning: (pq) => this.paused.whenResumed(pq.key),
      });
      this.state = 'running';
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Subscribes a topic (TAG `tags` or an SQL92 `sql`, not both): its queues are allocated among the group's members
   * by the strategy and rebalanced as members come and go. Not with `assign`.
   */
  async subscribe(name: string, options: { readonly tags?: string; readonly sql?: string } = {}): Promise<void> {
    this.useMode('subscribe');
    this.selection.subscribe(await pullSubscription(this.host, this.group, this.names.topic(name), options));
    this.engine.subscribed();
  }

  /** Stops consuming a subscribed topic (its queues are released, what was committed stored). */
  async unsubscribe(topic: string): Promise<void> {
    this.selection.unsubscribe(this.names.topic(topic));
    this.engine.unsubscribed();
  }

  /**
   * Consumes exactly these queues (no rebalance), replacing any earlier assignment: new ones start at their
   * stored offset (else consumeFromWhere), dropped ones are released. Not with `subscribe`.
   */
  async assign(queues: readonly MessageQueue[]): Promise<void> {
    this.useMode('assign');
    await this.engine.assign(this.selection.assign(queues.map((mq) => this.names.wire(mq))));
  }

  /** The queues of a topic, from its route (to pick some for `assign`). */
  async queuesOf(topic: string): Promise<MessageQueue[]> {
    this.assertRunning();
    return [...(await this.host.roles.routes.subscribeQueues(this.names.topic(topic)))]
      .sort(compareMessageQueues)
      .map((mq) => this.names.plain(mq));
  }

  /**
   * The next messages: up to pullBatchSize, each queue's in offset order; empty when none arrived within the
   * timeout (default pollTimeoutMs). Messages of paused queues wait for their `resume`.
   */
  async poll(options: { readonly timeoutMs?: number } = {}): Promise<Message[]> {
    this.assertRunning();
    const { group, pollTimeoutMs } = this.resolved;
    const held = (pq: ProcessQueue): boolean => this.paused.has(pq.key);
    const taken = await this.buffer.poll(
      group.pullBatchSize,
      held,
      options.timeoutMs ?? pollTimeoutMs,
      this.controller.signal,
    );
    return taken.size > 0 ? this.engine.consumed(taken) : [];
  }

  /**
   * Moves an assigned queue to `offset` (between the queue's min and max offsets, max included): what was cached
   * is dropped and the next poll starts there. A seek after `assign` returned always wins over the stored offset.
   */
  async seek(given: MessageQueue, offset: number): Promise<void> {
    const mq = this.requireAssigned(given);
    const checked = await checkSeekOffset(this.host.roles.offsets, mq, offset);
    this.engine.queues.seek(mq, checked);
  }

  async seekToBegin(given: MessageQueue): Promise<void> {
    const mq = this.requireAssigned(given);
    this.engine.queues.seek(mq, await this.host.roles.offsets.minOffset(mq));
  }

  async seekToEnd(given: MessageQueue): Promise<void> {
    const mq = this.requireAssigned(given);
    this.engine.queues.seek(mq, await this.host.roles.offsets.maxOffset(mq));
  }

  /** The first offset whose message was stored at or after `timestamp` (SEARCH_OFFSET_BY_TIMESTAMP). */
  async offsetForTimestamp(mq: MessageQueue, timestamp: number): Promise<number> {
    this.assertRunning();
    return this.host.roles.offsets.searchOffset(this.names.wire(mq), timestamp);
  }

  /**
   * Stores, for every queue poll returned messages of or `seek` moved, the offset after the last message poll
   * returned (or the sought one); queues never read are left as the store has them, as Java's commitSync leaves
   * queues whose consumer offset it never set. Resolves once the offset store acknowledged (rejects with its error).
   */
  commit(): Promise<void> {
    this.assertRunning();
    return this.engine.commit();
  }

  /** The stored next offset to consume of a queue, or -1 when there is none (Java's `committed`). */
  async committed(mq: MessageQueue): Promise<number> {
    this.assertRunning();
    return this.engine.progress.read(this.names.wire(mq));
  }

  /**
   * Pauses these queues: from this call on `poll()` (one already waiting too) returns nothing of them, neither what
   * was buffered nor what a pull in flight brings in, and they are not pulled again; nothing of them is committed
   * past what poll returned. There is no running handler to wait for, so it takes effect when it returns.
   */
  pause(mqs: readonly MessageQueue[]): void {
    for (const mq of mqs) this.paused.pause(mqKey(this.names.wire(mq)));
  }

  /** Hands out what paused queues buffered, and pulls them again. */
  resume(mqs: readonly MessageQueue[]): void {
    for (const mq of mqs) this.paused.resume(mqKey(this.names.wire(mq)));
    this.buffer.wake();
  }

  /** The queues this consumer reads now: assigned ones, or those allocated to it among its subscriptions. */
  assignment(): MessageQueue[] {
    return this.selection.queues().map((mq) => this.names.plain(mq));
  }

  status(): PullConsumerStatus {
    return {
      group: this.group,
      clientId: this.clientId,
      mode: this.selection.mode,
      queues: this.engine?.queues.statuses() ?? [],
      unroutedTopics: this.engine?.unroutedTopics() ?? [],
      topics: this.ctx.stats.report(),
      buffered: this.buffer.queued,
    };
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Message[]> {
    while (this.state === 'running') {
      const messages = await this.poll();
      if (messages.length > 0) yield messages;
    }
  }

  /**
   * Stops pulling, stores what was consumed (autoCommit) or what was committed, leaves the group and closes the
   * transport. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    const wasRunning = this.state === 'running';
    this.state = 'closed';
    this.runtimeController.abort();
    this.buffer.close();
    if (wasRunning) await this.engine.leave();
    this.controller.abort();
    await this.engine?.stopped();
    await this.host.close();
  }

  private callbacks(): BrokerCallbacks {
    return {
      resetOffsets: async (group, offsets) => {
        if (group === this.group) await this.engine?.queues.resetOffsets(offsets);
      },
      runningInfo: (group) =>
        group === this.group && this.state === 'running'
          ? runningStatus(this.status(), this.paused.any, this.engine.strategy.name)
          : undefined,
      // Java's consumeMessageDirectly serves push consumers only.
      consumeDirectly: async () => undefined,
    };
  }

  private useMode(mode: 'subscribe' | 'assign'): void {
    this.assertRunning();
    this.selection.use(mode);
  }

  private requireAssigned(given: MessageQueue): MessageQueue {
    this.assertRunning();
    const mq = this.names.wire(given);
    if (!this.selection.owns(mq))
      throw new IllegalStateError(
        `The message queue is not in assigned list${this.selection.mode === 'subscribe' ? ', may be rebalancing' : ''}, message queue: ${mqLabel(given)}`,
      );
    return mq;
  }

  private assertRunning(): void {
    if (this.state !== 'running')
      throw new IllegalStateError(
        `pull consumer ${this.clientId} is ${this.state === 'new' ? 'not started' : 'closed'}`,
      );
  }
}
