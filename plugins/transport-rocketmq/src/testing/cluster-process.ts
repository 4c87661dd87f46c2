import type { ProbeOptions } from './remoting-probe';
import {
  brokerAnswers,
  logTail,
  pollUntilReady,
  readClusterInfo,
  readSyncStateSet,
  type RegisteredBroker,
  type SyncStateSet,
} from './cluster-readiness';
import type { ClusterProcessRecord } from './cluster-descriptor';
import { isProcessAlive, spawnProcess } from './process-control';

/** A `failure` for {@link pollUntilReady}: the process exited, with the tail of its log. */
export function exitFailure(pid: number, logFile: string): () => string | undefined {
  return () => (isProcessAlive(pid) ? undefined : `process ${pid} exited; log ${logFile}:\n${logTail(logFile)}`);
}

/** Starts one recorded process and waits until it answers the remoting protocol. */
export async function launchProcess(
  record: ClusterProcessRecord,
  context: { namesrvAddr: string; probe: ProbeOptions; timeoutMs: number; detached?: boolean },
): Promise<void> {
  const pid = spawnProcess(record.spec, { detached: context.detached });
  record.pid = pid;
  const failure = exitFailure(pid, record.spec.logFile);
  if (record.role === 'namesrv') {
    // The name server is ready once it answers GET_BROKER_CLUSTER_INFO at all.
    await pollUntilReady(
      `name server ${record.addr}`,
      async () => {
        await readClusterInfo(record.addr, context.probe);
        return true;
      },
      {
        timeoutMs: context.timeoutMs,
        failure,
      },
    );
    return;
  }
  // A broker is ready when it answers a request itself and the name server lists it at that address, under any
  // broker id (a slave, or a controller-mode broker before or after its election).
  const brokerName = record.brokerName ?? record.name;
  await pollUntilReady(
    `broker ${record.name} at ${record.addr}`,
    async () => {
      if (!(await brokerAnswers(record.addr, context.probe))) return false;
      return listed(await readClusterInfo(context.namesrvAddr, context.probe), brokerName, record.addr);
    },
    { timeoutMs: context.timeoutMs, failure },
  );
}

/**
 * Waits until the name server lists a master (brokerId 0) of `brokerName`, other than `notAddr` when given (a
 * controller failover); resolves with its address.
 */
export async function waitForMaster(
  brokerName: string,
  context: { namesrvAddr: string; probe: ProbeOptions; timeoutMs: number },
  notAddr?: string,
): Promise<string> {
  let master: string | undefined;
  await pollUntilReady(
    `a master of ${brokerName}${notAddr ? ` other than ${notAddr}` : ''}`,
    async () => {
      master = (await readClusterInfo(context.namesrvAddr, context.probe)).find(
        (b) => b.brokerName === brokerName,
      )?.addr;
      return master !== undefined && master !== notAddr;
    },
    { timeoutMs: context.timeoutMs },
  );
  return master!;
}

/** Waits until the controller lists `count` replicas of `brokerName` in its sync-state set. */
export async function waitForInSync(
  controllerAddr: string,
  brokerName: string,
  count: number,
  context: { probe: ProbeOptions; timeoutMs: number },
): Promise<void> {
  let last: SyncStateSet | undefined;
  await pollUntilReady(
    `${count} replicas of ${brokerName} in sync`,
    async () => {
      last = await readSyncStateSet(controllerAddr, brokerName, context.probe);
      return last.inSync.length >= count;
    },
    { timeoutMs: context.timeoutMs, failure: () => undefined },
  ).catch((error: Error) => {
    throw new Error(`${error.message} (last: ${JSON.stringify(last)})`);
  });
}

/** True when the name server lists `addr` as a member of `brokerName`. */
export function listed(brokers: readonly RegisteredBroker[], brokerName: string, addr: string): boolean {
  return brokers.some((b) => b.brokerName === brokerName && Object.values(b.addrs).includes(addr));
}

/** Waits until the name server no longer lists the broker at `addr` (it drops a broker when its connection closes). */
export async function waitForUnregistered(
  brokerName: string,
  addr: string,
  context: { namesrvAddr: string; probe: ProbeOptions; timeoutMs: number },
): Promise<void> {
  await pollUntilReady(
    `name server dropping ${brokerName} at ${addr}`,
    async () => !listed(await readClusterInfo(context.namesrvAddr, context.probe), brokerName, addr),
    {
      timeoutMs: context.timeoutMs,
    },
  );
}
