import { Subject } from 'rxjs';
import { record } from '../consumer/runtime.fixture';
import type { MessageRecord } from '../model/message';
import { mqKey, type MessageQueue } from '../model/message-queue';
import { PullStatus, type PullResult } from '../model/pull-result';
import type { TransportPlugin, TransportRoles } from './transport.plugin';
import type { ConsumerRegistration, PullRequest } from './transport.roles';

/*
 * A broker in memory behind the transport roles a consumer needs, for the specs of what assembles a group (the pull
 * consumer's engine, a push consumer's runtime): stored queues, committed offsets, members and what the client
 * asked of it.
 */

/**
 * One broker in memory: queues of stored records, the group's committed offsets, and what the client asked of it.
 * A pull with nothing to read is held until a record arrives or the pull's signal aborts, as a long poll is.
 */
export class FakeBroker {
  readonly stored = new Map<string, MessageRecord[]>();
  readonly committed = new Map<string, number>();
  readonly commits: { mq: MessageQueue; offset: number }[] = [];
  readonly heartbeats: ConsumerRegistration[][] = [];
  readonly unregistered: string[] = [];
  readonly memberLookups: string[] = [];
  /** The messages sent back (CONSUMER_SEND_MSG_BACK). */
  readonly sentBack: MessageRecord[] = [];
  readonly routes = new Map<string, MessageQueue[]>();
  /** The client ids of the group's members. */
  members: string[] = [];
  /** When set, member lookups wait for it (a rebalance pass cannot finish). */
  membersGate: Promise<void> | undefined;
  /** When set, commits wait for it. */
  commitGate: Promise<void> | undefined;
  /** When set, commits fail with it. */
  commitError: Error | undefined;
  private readonly arrivals = new Set<() => void>();

  /** Stores `count` records at the end of the queue and answers the pulls held for it. */
  add(queue: MessageQueue, count: number): void {
    const list = this.stored.get(mqKey(queue)) ?? [];
    for (let i = 0; i < count; i++) list.push(record(list.length, { mq: queue }));
    this.stored.set(mqKey(queue), list);
    for (const wake of [...this.arrivals]) wake();
  }

  plugin(): TransportPlugin {
    return { kind: 'transport', name: 'fake', connect: async () => this.roles() };
  }

  roles(): TransportRoles {
    return {
      routes: {
        subscribeQueues: async (topic) => this.routes.get(topic) ?? [],
        publishQueues: async (topic) => this.routes.get(topic) ?? [],
      },
      membership: {
        heartbeat: async (registrations) => void this.heartbeats.push([...registrations]),
        unregister: async (group) => void this.unregistered.push(group),
        consumerIds: async (_group, topic) => {
          this.memberLookups.push(topic);
          await this.membersGate;
          return this.members;
        },
        changes$: new Subject<string>(),
      },
      puller: { pull: (request, signal) => this.pull(request, signal) },
      offsets: {
        queryConsumerOffset: async (_group, queue) => this.committed.get(mqKey(queue)) ?? -1,
        commitConsumerOffset: async (_group, queue, offset) => {
          this.commits.push({ mq: queue, offset });
          await this.commitGate;
          if (this.commitError) throw this.commitError;
          this.committed.set(mqKey(queue), offset);
        },
        minOffset: async () => 0,
        maxOffset: async (queue) => this.stored.get(mqKey(queue))?.length ?? 0,
        searchOffset: async () => 0,
      },
      retry: {
        sendBack: async (request) => void this.sentBack.push(request.message),
      },
      locks: {
        lock: async (_group, mqs) => [...mqs],
        unlock: async () => undefined,
      },
      close: async () => undefined,
    };
  }

  private pull(request: PullRequest, signal: AbortSignal): Promise<PullResult> {
    return new Promise((resolve, reject) => {
      const answer = (): boolean => {
        const list = this.stored.get(mqKey(request.mq)) ?? [];
        if (request.offset >= list.length) return false;
        const messages = list.slice(request.offset, request.offset + request.maxMsgs);
        done();
        resolve({
          status: PullStatus.FOUND,
          nextBeginOffset: request.offset + messages.length,
          minOffset: 0,
          maxOffset: list.length,
          messages,
        });
        return true;
      };
      const aborted = (): void => {
        done();
        reject(signal.reason ?? new Error('aborted'));
      };
      const wake = (): void => void answer();
      const done = (): void => {
        this.arrivals.delete(wake);
        signal.removeEventListener('abort', aborted);
      };
      if (answer()) return;
      this.arrivals.add(wake);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }
}
