// Nest reads design:paramtypes and mqkit's decorators write metadata: the polyfill loads before anything else.
import 'reflect-metadata';

// Module, lifecycle, producer
export { MqkitModule } from './module/mqkit.module';
export {
  MQKIT_MODULE_OPTIONS,
  type MqkitModuleAsyncOptions,
  type MqkitModuleOptions,
} from './module/mqkit-module-options';
export { MqkitConsumers } from './module/mqkit-consumers.service';
export { MQKIT_CONTEXT_TYPE } from './module/consumer.explorer';
export { MqkitProducer } from './producer/mqkit.producer';

// Handler declarations and parameters
export { Consumer, type ConsumeContext, type ConsumerOptions, type Message } from '@mqkit/core';
export { MqPayload } from './params/mq-payload.decorator';
export { MqMessage } from './params/mq-message.decorator';
export { MqConsumeContext } from './params/mq-consume-context.decorator';
export { MqkitParamtype } from './params/mqkit-paramtype';

// Custom transport strategy
export { MqkitServer, type MqkitServerStatus } from './server/mqkit.server';
export { MqkitContext } from './server/mqkit.context';
export { MqEventPattern } from './server/mq-event-pattern.decorator';
export { MqMessagePattern } from './server/mq-message-pattern.decorator';
export { MQKIT_TRANSPORT, type MqkitEventExtras, type MqkitServerOptions } from './server/mqkit-server-options';

// Client proxy (send: request-reply, emit: plain sends)
export { MqkitClient } from './client/mqkit.client';
export type {
  MqkitClientCommonOptions,
  MqkitClientOptions,
  MqkitClientProducerOptions,
  MqkitClientSharedOptions,
  MqkitClientStatus,
  MqkitRequester,
} from './client/mqkit-client-options';
