import { ProtocolError } from '@mqkit/core';
import { fastJsonEntries, type FastJsonValue } from '../protocol/fastjson.parser';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { asObject, asString, expectCode, jsonBody } from './broker-response';
import type { BrokerData } from './topic-route.codec';

/** GET_BROKER_CLUSTER_INFO (106 → name server): every registered broker group. */
export function clusterInfoRequest(): OutgoingRequest {
  return { code: RequestCode.GET_BROKER_CLUSTER_INFO };
}

/**
 * Reads ClusterInfo's `brokerAddrTable` (broker name → BrokerData). The name server writes this body with plain
 * fastjson whatever the request version, so broker ids come as bare numeric keys (`{0:"127.0.0.1:10911"}`); the
 * fastjson parser reads them. Sorted by broker name.
 */
export function parseClusterInfo(response: RemotingCommand): BrokerData[] {
  expectCode(response, 'cluster info');
  if (response.body.length === 0) return [];
  const body = asObject(jsonBody(response, 'ClusterInfo'), 'ClusterInfo');
  const out: BrokerData[] = [];
  for (const [name, value] of fastJsonEntries(body.brokerAddrTable)) {
    const o = asObject(value, `brokerAddrTable.${String(name)}`);
    const addrs = new Map<number, string>();
    for (const [key, addr] of fastJsonEntries(o.brokerAddrs as FastJsonValue)) {
      const id = typeof key === 'number' ? key : typeof key === 'string' && /^-?\d+$/.test(key) ? Number(key) : NaN;
      if (!Number.isSafeInteger(id))
        throw new ProtocolError(`brokerAddrTable.${String(name)}.brokerAddrs has a non-numeric broker id`);
      addrs.set(id, asString(addr, `brokerAddrTable.${String(name)}.brokerAddrs.${id}`));
    }
    const zone = o.zoneName;
    out.push({
      cluster: typeof o.cluster === 'string' ? o.cluster : '',
      brokerName: asString(o.brokerName, `brokerAddrTable.${String(name)}.brokerName`),
      brokerAddrs: addrs,
      zoneName: typeof zone === 'string' ? zone : undefined,
    });
  }
  return out.sort((a, b) => (a.brokerName < b.brokerName ? -1 : a.brokerName > b.brokerName ? 1 : 0));
}
