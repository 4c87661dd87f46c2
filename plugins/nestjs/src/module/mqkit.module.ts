import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { MqkitProducer } from '../producer/mqkit.producer';
import { ConsumerExplorer } from './consumer.explorer';
import { MqkitConsumers } from './mqkit-consumers.service';
import { MQKIT_MODULE_OPTIONS, type MqkitModuleAsyncOptions, type MqkitModuleOptions } from './mqkit-module-options';

/**
 * mqkit in a Nest application. Global: `MqkitProducer` and `MqkitConsumers` inject anywhere. `@Consumer` methods
 * of any provider are found through Nest's DiscoveryService and consume once the application has bootstrapped.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [MqkitModule.forRoot({ transport: memoryTransport(), producer: { group: 'orders-producer' } })],
 *   providers: [OrderRepository, OrderConsumer],
 * })
 * class AppModule {}
 *
 * @Module({
 *   imports: [
 *     MqkitModule.forRootAsync({
 *       imports: [ConfigModule],
 *       inject: [ConfigService],
 *       useFactory: (config: ConfigService) => ({ transport: rocketmqTransport({ nameServer: config.get('NAMESRV') }) }),
 *     }),
 *   ],
 * })
 * class ProductionModule {}
 * ```
 */
@Module({})
export class MqkitModule {
  /** The module with options known up front. */
  static forRoot(options: MqkitModuleOptions): DynamicModule {
    return mqkitModule([], { provide: MQKIT_MODULE_OPTIONS, useValue: options });
  }

  /** The module with options built by a factory from injected providers (config services and the like). */
  static forRootAsync(options: MqkitModuleAsyncOptions): DynamicModule {
    return mqkitModule(options.imports ?? [], {
      provide: MQKIT_MODULE_OPTIONS,
      useFactory: options.useFactory,
      inject: options.inject ?? [],
    });
  }
}

function mqkitModule(imports: NonNullable<DynamicModule['imports']>, optionsProvider: Provider): DynamicModule {
  return {
    module: MqkitModule,
    global: true,
    imports: [DiscoveryModule, ...imports],
    providers: [optionsProvider, ConsumerExplorer, MqkitConsumers, MqkitProducer],
    exports: [MqkitConsumers, MqkitProducer, MQKIT_MODULE_OPTIONS],
  };
}
