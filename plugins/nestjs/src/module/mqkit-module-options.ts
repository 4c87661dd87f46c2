import type { ConsumerAppOptions, ProducerOptions } from '@mqkit/core';
import type { FactoryProvider, ModuleMetadata } from '@nestjs/common';

/**
 * `MqkitModule.forRoot` options: what `createConsumerApp` takes, minus `consumers` (Nest discovers them among its
 * providers) and with `producer` configuring the injectable {@link MqkitProducer}. `plugins` are registered with
 * the consumer app and with MqkitProducer's connection, e.g. one `prometheusMetrics({ registry })` for both.
 */
export interface MqkitModuleOptions extends Omit<ConsumerAppOptions, 'consumers' | 'producer'> {
  /** Options of the injectable `MqkitProducer` (its own connection, started before the consumers). */
  readonly producer?: ProducerOptions;
  /** How long `app.close()` waits for running handler calls before leaving them for redelivery (default 30 s). */
  readonly stopTimeoutMs?: number;
}

/** `MqkitModule.forRootAsync` options: the usual Nest factory provider shape. */
export interface MqkitModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  readonly useFactory: (...args: never[]) => MqkitModuleOptions | Promise<MqkitModuleOptions>;
  readonly inject?: FactoryProvider['inject'];
}

/** Injection token of the resolved {@link MqkitModuleOptions}. */
export const MQKIT_MODULE_OPTIONS = Symbol.for('mqkit:module-options');
