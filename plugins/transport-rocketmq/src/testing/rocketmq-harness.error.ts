import { MqkitError } from '@mqkit/core';

/** What the harness could not find or do; `missing` names a tool to install when that is the cause. */
export type RocketMqHarnessFailure =
  | 'java-missing'
  | 'maven-missing'
  | 'provision'
  | 'disk-full'
  | 'port'
  | 'start'
  | 'stop'
  | 'tls';

/**
 * The real-cluster test harness could not provision, start or stop RocketMQ. The message says what to do
 * (for a missing tool: what to install, or `MQKIT_ROCKETMQ_NAMESRV` to use an existing cluster).
 */
export class RocketMqHarnessError extends MqkitError {
  readonly failure: RocketMqHarnessFailure;

  constructor(failure: RocketMqHarnessFailure, message: string, cause?: unknown) {
    super(message, { code: 'ROCKETMQ_HARNESS', retriable: false, cause });
    this.failure = failure;
  }
}
