import { setMaxListeners } from 'node:events';
import { BrokerError, type MessageQueue } from '@mqkit/core';

/**
 * Crashed brokers of an embedded cluster, for failure tests: a crashed broker leaves every route, refuses every
 * request (SERVICE_NOT_AVAILABLE, as a connection to a dead broker fails) and ends the long polls it held; when it
 * is restarted it is routed again.
 */
export class BrokerOutages {
  private readonly down = new Set<string>();
  /** Per broker, aborted when it crashes: held pulls listen to it. */
  private readonly alive = new Map<string, AbortController>();

  isDown(brokerName: string): boolean {
    return this.down.has(brokerName);
  }

  crash(brokerName: string): void {
    this.down.add(brokerName);
    this.alive.get(brokerName)?.abort(this.unavailable(brokerName));
    this.alive.delete(brokerName);
  }

  restart(brokerName: string): void {
    this.down.delete(brokerName);
  }

  /** Throws what a request to a crashed broker gets. */
  assertUp(brokerName: string): void {
    if (this.down.has(brokerName)) throw this.unavailable(brokerName);
  }

  /** The queues of brokers that are up. */
  routed(queues: MessageQueue[]): MessageQueue[] {
    return this.down.size === 0 ? queues : queues.filter((mq) => !this.down.has(mq.brokerName));
  }

  /** Aborts when the broker crashes (a held pull ends with the broker). */
  aliveSignal(brokerName: string): AbortSignal {
    let controller = this.alive.get(brokerName);
    if (!controller) {
      controller = new AbortController();
      this.alive.set(brokerName, controller);
      // Every pull held on the broker listens to it: many more than Node's default warning threshold of 10.
      setMaxListeners(0, controller.signal);
    }
    return controller.signal;
  }

  private unavailable(brokerName: string): BrokerError {
    return new BrokerError(`broker ${brokerName} is down (crashed)`, { responseCode: 14, brokerName });
  }
}
