import {
  IllegalStateError,
  createConsumerApp,
  type AppStatus,
  type ConsumerApp,
  type ConsumerControl,
  type CreatedByMqkit,
  type StopReport,
} from '@mqkit/core';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ConsumerExplorer } from './consumer.explorer';
import { MQKIT_MODULE_OPTIONS, type MqkitModuleOptions } from './mqkit-module-options';

/**
 * The mqkit consumers of a Nest application: started at `onApplicationBootstrap` (every module initialised, so
 * handlers never see half-built dependencies) and stopped with a drain at `onModuleDestroy`, on `app.close()` or
 * on SIGTERM with `app.enableShutdownHooks()`. Inject it for health checks (`ready`) and per-group controls.
 *
 * @example
 * ```ts
 * @Controller('health')
 * class HealthController {
 *   constructor(private readonly consumers: MqkitConsumers) {}
 *   @Get('ready') ready() { if (!this.consumers.ready) throw new ServiceUnavailableException(); return 'ok'; }
 * }
 * ```
 */
@Injectable()
export class MqkitConsumers implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Mqkit');
  private consumerApp: ConsumerApp | undefined;
  private stopping: Promise<StopReport | undefined> | undefined;

  private readonly options: MqkitModuleOptions;
  private readonly explorer: ConsumerExplorer;

  /** Not for applications: `MqkitModule` provides it; inject it as `MqkitConsumers`. */
  constructor(notForApplications: CreatedByMqkit);
  /** @internal */
  constructor(options: MqkitModuleOptions, explorer: ConsumerExplorer);
  constructor(
    @Inject(MQKIT_MODULE_OPTIONS) options: MqkitModuleOptions | CreatedByMqkit,
    // Injected by token: the implementation's parameters are wider than what Nest provides.
    @Inject(ConsumerExplorer) explorer?: ConsumerExplorer,
  ) {
    // Nest calls the internal signature; no value has the public one's type.
    this.options = options as MqkitModuleOptions;
    this.explorer = explorer as ConsumerExplorer;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.consumerApp) return;
    const { stopTimeoutMs: _stop, producer: _producer, ...appOptions } = this.options;
    const consumers = this.explorer.explore();
    const app = await createConsumerApp({ ...appOptions, consumers });
    this.consumerApp = app;
    await app.start();
    this.logger.log(
      `mqkit started ${consumers.length} handler(s) in ${app.status().consumers.length} consumer group(s) as ${app.clientId}`,
    );
  }

  /** Drains: running handler calls finish (up to `stopTimeoutMs`), offsets are committed, the group is left. */
  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /** Stops the consumers once (later calls return the same report); undefined when they never started. */
  stop(): Promise<StopReport | undefined> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  /** True once every consumer runs and has rebalanced at least once; false before bootstrap and after stop. */
  get ready(): boolean {
    return this.consumerApp?.status().ready ?? false;
  }

  /** The core app's status (state, per-consumer queues, cached bytes); undefined before bootstrap. */
  status(): AppStatus | undefined {
    return this.consumerApp?.status();
  }

  /** The underlying core `ConsumerApp` (events, `consumer(group)` controls). */
  get app(): ConsumerApp {
    if (!this.consumerApp)
      throw new IllegalStateError(
        'mqkit consumers start at onApplicationBootstrap: call app.init() (or app.listen()) first',
      );
    return this.consumerApp;
  }

  /** Pause, resume, status and offset reset of one consumer group. */
  consumer(group: string): ConsumerControl {
    return this.app.consumer(group);
  }

  private async doStop(): Promise<StopReport | undefined> {
    const app = this.consumerApp;
    if (!app) return undefined;
    const report = await app.stop({ timeoutMs: this.options.stopTimeoutMs ?? 30_000 });
    const message = `mqkit consumers stopped in ${report.elapsedMs} ms${report.drained ? '' : ' (not drained: unfinished messages will be redelivered)'}`;
    if (report.drained) this.logger.log(message);
    else this.logger.warn(message);
    return report;
  }
}
