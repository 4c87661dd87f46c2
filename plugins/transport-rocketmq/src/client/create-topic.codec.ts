import { RequestCode } from '../protocol/remoting-codes';
import type { OutgoingRequest } from '../remoting/remoting-request';
import { AUTO_CREATE_TOPIC } from './send-message.codec';

/** Read and write (PermName.READ | PermName.WRITE). */
const PERM_READ_WRITE = 6;

/**
 * UPDATE_AND_CREATE_TOPIC (17 → a broker): `queues` read and write queues, read/write permission, single-tag
 * filtering, not ordered, as MQAdminImpl.createTopic / mqadmin updateTopic send it. Idempotent when nothing
 * changes; a larger count grows the topic. The broker then registers the topic with the name servers.
 */
export function createTopicRequest(topic: string, queues: number): OutgoingRequest {
  return {
    code: RequestCode.UPDATE_AND_CREATE_TOPIC,
    extFields: {
      topic,
      defaultTopic: AUTO_CREATE_TOPIC,
      readQueueNums: queues,
      writeQueueNums: queues,
      perm: PERM_READ_WRITE,
      topicFilterType: 'SINGLE_TAG',
      topicSysFlag: 0,
      order: false,
    },
  };
}
