import { jsonCodec } from '../definition/json.codec';
import type { EventBus } from '../events/event-bus';
import { GROUP_MAX_LENGTH } from '../options/option-checks';
import { Producer } from '../producer/producer';
import { resolveProducerOptions } from '../producer/producer-options';
import type { SendHook } from '../spi/send-hook';
import type { ConsumeHook } from '../spi/consume-hook';
import type { Codec } from '../spi/codec';
import type { MessageSender, RouteResolver } from '../spi/transport.roles';
import { consumeTraceHook } from './consume-trace.hook';
import { sendTraceHook } from './send-trace.hook';
import { TRACE_GROUP_NAME_PREFIX } from './trace-context';
import { TraceDispatcher, type TraceStatus } from './trace-dispatcher';
import type { ResolvedTraceOptions } from '../options/trace-options';

/** What a client's message trace sends with: the client's own connection. */
export interface MessageTraceDeps {
  readonly routes: RouteResolver;
  readonly sender: MessageSender;
  readonly events: EventBus;
  readonly clientId: string;
}

/** AsyncTraceDispatcher's trace producer settings: 5 s per send, bodies of at most 128000 bytes. */
const TRACE_SEND_TIMEOUT_MS = 5000;
const TRACE_MAX_MSG_SIZE = 128_000;
const TRACE_FLUSH_INTERVAL_MS = 5000;
const TRACE_MAX_IN_FLIGHT = 4;

/** Java numbers its trace producers per process, so two clients of one group never share one. */
let traceProducers = 0;

/**
 * One client's message trace (what `enableMsgTrace` starts in Java's DefaultMQProducer.start and
 * DefaultMQPushConsumer.start): a dispatcher and an internal producer of group
 * `_INNER_TRACE_PRODUCER-<group>-<PRODUCE|CONSUME>-<n>`, which sends over the client's connection with RocketMQ's
 * queue selection and retries (core's Producer) and has no hooks, so it never traces itself. Its topic is never
 * wrapped in a namespace, as Java's trace producer has none.
 */
export class MessageTrace {
  private readonly producer: Producer;
  private readonly dispatcher: TraceDispatcher;

  constructor(
    host: { readonly group: string; readonly type: 'PRODUCE' | 'CONSUME' },
    private readonly settings: ResolvedTraceOptions,
    deps: MessageTraceDeps,
  ) {
    const group = traceGroupName(host.group, host.type, ++traceProducers);
    this.producer = new Producer({
      options: resolveProducerOptions({
        group,
        sendMsgTimeout: TRACE_SEND_TIMEOUT_MS,
        maxMessageSize: TRACE_MAX_MSG_SIZE,
      }),
      routes: deps.routes,
      sender: deps.sender,
      events: deps.events,
      clientId: deps.clientId,
    });
    const { traceTopic, batchNum, queueSize } = settings;
    this.dispatcher = new TraceDispatcher(
      {
        producerGroup: group,
        traceTopic,
        batchNum,
        queueSize,
        maxMsgSize: TRACE_MAX_MSG_SIZE,
        flushIntervalMs: TRACE_FLUSH_INTERVAL_MS,
        maxInFlight: TRACE_MAX_IN_FLIGHT,
      },
      async (message) => {
        await this.producer.send({ topic: traceTopic, body: message.body, keys: message.keys });
      },
      deps.events,
    );
  }

  /** Pub and EndTransaction records of a producer whose payloads `codec` encodes (JSON by default). */
  sendHook(codec: Codec = jsonCodec): SendHook {
    return sendTraceHook({
      dispatcher: this.dispatcher,
      traceTopic: this.settings.traceTopic,
      // Java reads the body the producer sends; a payload is encoded once more here, only while tracing.
      bodyLength: (m) =>
        m.body !== undefined
          ? typeof m.body === 'string'
            ? Buffer.byteLength(m.body, 'utf8')
            : m.body.length
          : m.payload !== undefined
            ? codec.encode(m.payload).length
            : 0,
    });
  }

  /** SubBefore and SubAfter records of every handler call. */
  consumeHook(): ConsumeHook {
    return consumeTraceHook(this.dispatcher);
  }

  status(): TraceStatus {
    return this.dispatcher.status();
  }

  /** Sends what is queued, then stops the trace producer. Call it after the traced client's last send or handler call. */
  async stop(): Promise<void> {
    await this.dispatcher.stop();
    await this.producer.stop();
  }
}

/** TraceConstants.GROUP_NAME_PREFIX + "-" + group + "-" + type + "-" + n, the group cut to keep RocketMQ's 120 characters. */
export function traceGroupName(group: string, type: 'PRODUCE' | 'CONSUME', n: number): string {
  const head = `${TRACE_GROUP_NAME_PREFIX}-`;
  const tail = `-${type}-${n}`;
  return head + group.slice(0, GROUP_MAX_LENGTH - head.length - tail.length) + tail;
}
