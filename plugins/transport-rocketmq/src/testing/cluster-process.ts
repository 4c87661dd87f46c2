import type { ProbeOptions } from './remoting-probe';
import { brokerAnswers, logTail, pollUntilReady, readClusterInfo } from './cluster-readiness';
import type { ClusterProcessRecord } from './cluster-descriptor';
import { isProcessAlive, spawnProcess } from './process-control';

/** Starts one recorded process and waits until it answers the remoting protocol. */
export async function launchProcess(
  record: ClusterProcessRecord,
  context: { namesrvAddr: string; probe: ProbeOptions; timeoutMs: number; detached?: boolean },
): Promise<void> {
  const pid = spawnProcess(record.spec, { detached: context.detached });
  record.pid = pid;
  const failure = (): string | undefined =>
    isProcessAlive(pid) ? undefined : `process ${pid} exited; log ${record.spec.logFile}:\n${logTail(record.spec.logFile)}`;
  if (record.role === 'namesrv') {
    // The name server is ready once it answers GET_BROKER_CLUSTER_INFO at all.
    await pollUntilReady(`name server ${record.addr}`, async () => (await readClusterInfo(record.addr, context.probe), true), {
      timeoutMs: context.timeoutMs,
      failure,
    });
    return;
  }
  // A broker is ready when it answers a request itself and the name server lists it at that address.
  await pollUntilReady(
    `broker ${record.name} at ${record.addr}`,
    async () => {
      if (!(await brokerAnswers(record.addr, context.probe))) return false;
      const brokers = await readClusterInfo(context.namesrvAddr, context.probe);
      return brokers.some((b) => b.brokerName === record.name && b.addr === record.addr);
    },
    { timeoutMs: context.timeoutMs, failure },
  );
}

/** Waits until the name server no longer lists `brokerName` (it drops a broker when its connection closes). */
export async function waitForUnregistered(
  brokerName: string,
  context: { namesrvAddr: string; probe: ProbeOptions; timeoutMs: number },
): Promise<void> {
  await pollUntilReady(
    `name server dropping ${brokerName}`,
    async () => !(await readClusterInfo(context.namesrvAddr, context.probe)).some((b) => b.brokerName === brokerName && b.addr),
    { timeoutMs: context.timeoutMs },
  );
}
