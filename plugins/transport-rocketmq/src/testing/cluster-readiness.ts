import { readFileSync } from 'node:fs';
import { parseFastjson } from './fastjson-text';
import { RocketMqHarnessError } from './rocketmq-harness.error';
import { ProbeCode, sendProbeRequest, type ProbeOptions } from './remoting-probe';

/** A broker name (a master and its slaves) as the name server lists it. */
export interface RegisteredBroker {
  readonly brokerName: string;
  readonly clusterName: string;
  /** The master's (brokerId 0) address, as clients get it; undefined while the name has no master. */
  readonly addr: string | undefined;
  /** Every registered member by broker id (0 = master). */
  readonly addrs: Readonly<Record<string, string>>;
}

interface ClusterInfoBody {
  brokerAddrTable?: Record<string, { brokerName: string; cluster: string; brokerAddrs?: Record<string, string> }>;
}

/** Asks a name server for GET_BROKER_CLUSTER_INFO (106) and lists the registered brokers. */
export async function readClusterInfo(namesrvAddr: string, options: ProbeOptions = {}): Promise<RegisteredBroker[]> {
  const response = await sendProbeRequest(namesrvAddr, { code: ProbeCode.GET_BROKER_CLUSTER_INFO }, options);
  if (response.code !== 0) {
    throw new RocketMqHarnessError(
      'start',
      `name server ${namesrvAddr} answered code ${response.code}: ${response.remark ?? ''}`,
    );
  }
  const body = response.body.length > 0 ? (parseFastjson(response.body.toString('utf8')) as ClusterInfoBody) : {};
  return Object.values(body.brokerAddrTable ?? {}).map((data) => ({
    brokerName: data.brokerName,
    clusterName: data.cluster,
    addr: data.brokerAddrs?.['0'],
    addrs: { ...data.brokerAddrs },
  }));
}

/** A controller-mode broker name's replicas as its controller sees them (BrokerReplicasInfo.ReplicasInfo). */
export interface SyncStateSet {
  readonly masterAddress: string | undefined;
  /** Addresses of the replicas in the sync-state set (a new master is elected from these). */
  readonly inSync: readonly string[];
  readonly notInSync: readonly string[];
}

interface ReplicasInfoBody {
  replicasInfoTable?: Record<
    string,
    {
      masterAddress?: string;
      inSyncReplicas?: { brokerAddress: string }[];
      notInSyncReplicas?: { brokerAddress: string }[];
    }
  >;
}

/** Asks a controller for CONTROLLER_GET_SYNC_STATE_DATA (1006) of one broker name. */
export async function readSyncStateSet(
  controllerAddr: string,
  brokerName: string,
  options: ProbeOptions = {},
): Promise<SyncStateSet> {
  const response = await sendProbeRequest(
    controllerAddr,
    { code: ProbeCode.CONTROLLER_GET_SYNC_STATE_DATA, body: Buffer.from(JSON.stringify([brokerName])) },
    options,
  );
  if (response.code !== 0)
    throw new RocketMqHarnessError(
      'start',
      `controller ${controllerAddr} answered code ${response.code}: ${response.remark ?? ''}`,
    );
  const info = (parseFastjson(response.body.toString('utf8')) as ReplicasInfoBody).replicasInfoTable?.[brokerName];
  return {
    masterAddress: info?.masterAddress || undefined,
    inSync: (info?.inSyncReplicas ?? []).map((r) => r.brokerAddress),
    notInSync: (info?.notInSyncReplicas ?? []).map((r) => r.brokerAddress),
  };
}

/** True when the broker itself answers GET_BROKER_RUNTIME_INFO (28) with SUCCESS. */
export async function brokerAnswers(brokerAddr: string, options: ProbeOptions = {}): Promise<boolean> {
  const response = await sendProbeRequest(brokerAddr, { code: ProbeCode.GET_BROKER_RUNTIME_INFO }, options);
  return response.code === 0;
}

/** Last `bytes` of a log file, for error messages. */
export function logTail(file: string, bytes = 3000): string {
  try {
    const text = readFileSync(file, 'utf8');
    return text.slice(-bytes);
  } catch {
    return '(no log)';
  }
}

/**
 * Polls `check` every `intervalMs` until it resolves true. Stops early with an error when `failure()` returns a
 * reason (e.g. the process exited), and after `timeoutMs` with the last probe error.
 */
export async function pollUntilReady(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; failure?: () => string | undefined },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let last: unknown;
  for (;;) {
    const reason = options.failure?.();
    if (reason) throw new RocketMqHarnessError('start', `${what}: ${reason}`);
    try {
      if (await check()) return;
      last = undefined;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      const detail = last instanceof Error ? ` (last probe: ${last.message})` : '';
      throw new RocketMqHarnessError('start', `${what}: not ready after ${options.timeoutMs} ms${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
}
