import { createProducer, type StandaloneProducer } from '@mqkit/core';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';
import { uniqueName } from '@mqkit/core/testing';

/**
 * The load of a chaos scenario: `{ seq }` messages at a steady rate, the same for both clients. Sends that the
 * broker acknowledged are what loss is counted against; failed sends are reported, never retried by hand.
 * sendLatencyFaultEnable keeps a dead broker out of the way, as a production producer would be set up.
 */
export class SteadyProducer {
  readonly acknowledged = new Set<number>();
  failed = 0;
  private seq = 0;
  private running: Promise<void> | undefined;
  private stopping = false;

  private constructor(private readonly producer: StandaloneProducer) {}

  static async open(namesrvAddr: string): Promise<SteadyProducer> {
    const producer = await createProducer({
      transport: rocketmqTransport({ nameServer: namesrvAddr }),
      group: uniqueName('chaosProducer'),
      sendLatencyFaultEnable: true,
      sendMsgTimeout: 5_000,
    });
    return new SteadyProducer(producer);
  }

  /** The next sequence number to be sent: everything from it on is sent after "now". */
  get next(): number {
    return this.seq;
  }

  /** Sends to `topic` at `perSecond`, in ticks of 50 ms, until stop(). */
  start(topic: string, perSecond: number): void {
    const perTick = Math.max(1, Math.round(perSecond / 20));
    this.running = (async () => {
      let tick = Date.now();
      while (!this.stopping) {
        for (let i = 0; i < perTick; i++) {
          const seq = this.seq++;
          this.producer.send({ topic, payload: { seq } }).then(
            () => void this.acknowledged.add(seq),
            () => void this.failed++,
          );
        }
        tick += 50;
        await new Promise((r) => setTimeout(r, Math.max(0, tick - Date.now())));
      }
    })();
  }

  /** Stops sending and waits for the sends in flight. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
    await this.producer.stop();
  }

  get sent(): number {
    return this.seq;
  }
}
