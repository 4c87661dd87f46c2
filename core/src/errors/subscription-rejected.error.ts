import { MqkitError } from './mqkit.error';

/**
 * A broker refused a subscription's filter (CHECK_CLIENT_CONFIG): `setting` names the broker setting that is off
 * (`enablePropertyFilter` for SQL92), or is undefined when the broker could not parse the expression.
 */
export class SubscriptionRejectedError extends MqkitError {
  readonly brokerName: string;
  readonly setting: string | undefined;
  /** What the broker answered. */
  readonly remark: string;

  constructor(options: { brokerName: string; setting?: string; remark: string; responseCode?: number }) {
    super(
      options.setting
        ? `broker ${options.brokerName} cannot filter by this subscription: it needs ${options.setting}=true (${options.remark})`
        : `broker ${options.brokerName} refused the subscription's expression: ${options.remark}`,
      { code: 'SUBSCRIPTION_REJECTED', retriable: false },
    );
    this.brokerName = options.brokerName;
    this.setting = options.setting;
    this.remark = options.remark;
  }
}
