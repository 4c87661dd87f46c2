import { jsonCodec } from '../definition/json.codec';
import { MessageValidationError } from '../errors/validation.error';
import { MessageConst } from '../model/constants';
import { wrapNamespace } from '../model/namespace';
import type { OutgoingMessage } from '../model/outgoing-message';
import type { OutgoingRecord } from '../spi/transport.roles';
import { copyProperties } from '../util/copy-properties';
import { compressBody } from './compression';
import {
  liteTopicProperty,
  priorityProperty,
  timerProperty,
  validateBody,
  validateDelayLevel,
  validateProperties,
  validateTopic,
} from './message-validator';
import type { ResolvedProducerOptions } from './producer-options';
import { UniqKeyGenerator } from './uniq-key';

/**
 * Turns a message into what goes on the wire, as RocketMQ's producer does before any send: the topic in the
 * namespace, the body encoded and checked, the properties checked and completed, a new UNIQ_KEY, and the body
 * compressed past compressMsgBodyOverHowmuch. Every send kind builds its records here, so each message gets one
 * UNIQ_KEY, kept across retries.
 */
export class RecordBuilder {
  readonly #options: ResolvedProducerOptions;
  readonly #uniq = new UniqKeyGenerator();

  constructor(options: ResolvedProducerOptions) {
    this.#options = options;
  }

  /** Validates and encodes a message (throws MessageValidationError); batches pass `compress` false. */
  build<T>(message: OutgoingMessage<T>, compress = true): OutgoingRecord {
    const options = this.#options;
    const topic = wrapNamespace(options.namespace, message.topic);
    validateTopic(topic);
    let body: Buffer;
    if (message.body !== undefined)
      body = typeof message.body === 'string' ? Buffer.from(message.body, 'utf8') : message.body;
    else if (message.payload !== undefined) body = (options.codec ?? jsonCodec).encode(message.payload);
    else throw new MessageValidationError('body.null', 'the message body is null: give body or payload');
    validateBody(body, options.maxMessageSize);
    validateProperties(message.properties);
    validateDelayLevel(message.delayTimeLevel);
    const properties = copyProperties(message.properties);
    properties[MessageConst.WAIT] = message.waitStoreMsgOK === false ? 'false' : 'true';
    if (message.tags) properties[MessageConst.TAGS] = message.tags;
    const keys = typeof message.keys === 'string' ? [message.keys] : (message.keys ?? []);
    if (keys.length > 0) properties[MessageConst.KEYS] = keys.join(' ');
    if (message.delayTimeLevel && message.delayTimeLevel > 0)
      properties[MessageConst.DELAY] = String(message.delayTimeLevel);
    const timer = timerProperty(message);
    if (timer) properties[timer[0]] = timer[1];
    const priority = priorityProperty(message);
    if (priority !== undefined) properties[MessageConst.PRIORITY] = priority;
    const lite = liteTopicProperty(message);
    if (lite !== undefined) properties[MessageConst.LITE_TOPIC] = lite;
    properties[MessageConst.UNIQ_KEY] = this.#uniq.next();
    // The size rule applies to the body as given; compression happens after it, as in RocketMQ.
    const wire = compress
      ? compressBody(body, options.compressMsgBodyOverHowmuch, options.compressType, options.compressLevel)
      : { body, sysFlag: 0 };
    return {
      topic,
      body: wire.body,
      flag: message.flag ?? 0,
      properties,
      sysFlag: wire.sysFlag,
      bornTimestamp: Date.now(),
    };
  }
}
