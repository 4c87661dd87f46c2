import {
  MessageNotFoundError,
  compareMessageQueues,
  createAdmin,
  createProducer,
  type Admin,
  type ConsumerApp,
  type MessageQueue,
  type SendResult,
} from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, mqadmin, testCluster } from '../support/rocketmq-fixtures';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
let admin: Admin;
beforeAll(async () => {
  cluster = await testCluster();
  harness = new RocketMqHarness(cluster);
  admin = await createAdmin({ transport: harness.transport(), profile: 'fast', instanceName: uniqueName('admin') });
});
afterAll(async () => {
  await admin?.close();
  await harness?.close();
});

const ns = () => ['-n', cluster.namesrvAddr];
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
/** UtilAll.formatDate(YYYY_MM_DD_HH_MM_SS), local time, as consumerProgress prints #LastTime. */
const dateTime = (ms: number) => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};
/** UtilAll.timeMillisToHumanString2, as topicStatus prints #Last Updated. */
const humanTime = (ms: number) => `${dateTime(ms)},${pad(new Date(ms).getMilliseconds(), 3)}`;

/** The rows of `mqadmin consumerProgress -g` for a topic: `#Topic #Broker Name #QID #Broker Offset #Consumer Offset [#Client IP] #Diff #Inflight #LastTime`. */
function progressRows(
  out: string,
  topic: string,
  withClient: boolean,
): Map<
  string,
  { brokerOffset: number; consumerOffset: number; client?: string; diff: number; inflight: number; lastTime: string }
> {
  const rows = new Map<
    string,
    { brokerOffset: number; consumerOffset: number; client?: string; diff: number; inflight: number; lastTime: string }
  >();
  const client = withClient ? '\\s+(\\S+)' : '';
  for (const m of out.matchAll(
    new RegExp(
      `^${topic}\\s+(\\S+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)${client}\\s+(-?\\d+)\\s+(-?\\d+)\\s+(.*?)\\s*$`,
      'gm',
    ),
  )) {
    const [, broker, qid, brokerOffset, consumerOffset, ...rest] = m;
    const [c, diff, inflight, lastTime] = withClient ? rest : [undefined, ...rest];
    rows.set(`${broker}/${qid}`, {
      brokerOffset: Number(brokerOffset),
      consumerOffset: Number(consumerOffset),
      client: c,
      diff: Number(diff),
      inflight: Number(inflight),
      lastTime: lastTime!,
    });
  }
  return rows;
}

/** Sends `count` messages with keys `[k<seq>, shared]`; resolves with the results. */
async function send(topic: string, count: number, shared: string): Promise<SendResult[]> {
  const producer = await createProducer({
    transport: harness.transport(),
    group: uniqueName('producer'),
    profile: 'fast',
    sendMsgTimeout: 10_000,
  });
  try {
    const out: SendResult[] = [];
    for (let seq = 0; seq < count; seq++)
      out.push(await producer.send({ topic, payload: { seq }, tags: `t${seq % 2}`, keys: [`k${seq}`, shared] }));
    return out;
  } finally {
    await producer.stop();
  }
}

/** Sends `count` messages into each of `queues`, naming the queue. */
async function sendToEach(queues: readonly MessageQueue[], count: number): Promise<void> {
  const producer = await createProducer({
    transport: harness.transport(),
    group: uniqueName('producer'),
    profile: 'fast',
    sendMsgTimeout: 10_000,
  });
  try {
    await Promise.all(
      queues.map(async (queue) => {
        for (let seq = 0; seq < count; seq++) await producer.send({ topic: queue.topic, payload: { seq } }, { queue });
      }),
    );
  } finally {
    await producer.stop();
  }
}

const key = (mq: MessageQueue) => `${mq.brokerName}/${mq.queueId}`;

describe('admin reads on a real cluster, compared with mqadmin', () => {
  it('consumerProgress of a group with offsets and no member: lag = sent - committed per queue, as mqadmin consumerProgress prints it', async () => {
    const topic = uniqueName('adm');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    // Both tools find a group's brokers through its retry topic's route, which a member's heartbeat creates; a
    // 5.3.3 broker refuses offsets of a group it has no subscription group config of (SUBSCRIPTION_GROUP_NOT_EXIST).
    await harness.createTopic(`%RETRY%${group}`, 1);
    await admin.createSubscriptionGroup(group);
    const queues = [...(await admin.queues(topic))].sort(compareMessageQueues);
    expect(queues).toHaveLength(4);
    // Ten messages into each queue, by name: a round-robin producer that steps around a slow broker would leave
    // a broker with no committed offset, and the broker then reports no row of the group at all.
    await sendToEach(queues, 10);
    const sizes = await Promise.all(queues.map((mq) => admin.transport.offsets.maxOffset(mq)));
    expect(sizes).toEqual([10, 10, 10, 10]);
    const consumed = [1, 0, 3, 5];
    for (const [i, mq] of queues.entries())
      if (consumed[i]! > 0) await admin.transport.offsets.commitConsumerOffset(group, mq, consumed[i]!);
    const rows = await admin.consumerProgress(group);
    expect(
      rows.map((r) => [r.topic, r.brokerName, r.queueId, r.brokerOffset, r.consumerOffset, r.lag, r.clientId]),
    ).toEqual(
      queues.map((mq, i) => [
        topic,
        mq.brokerName,
        mq.queueId,
        sizes[i],
        consumed[i],
        sizes[i]! - consumed[i]!,
        undefined,
      ]),
    );
    const out = await mqadmin(['consumerProgress', ...ns(), '-g', group]);
    const theirs = progressRows(out, topic, false);
    expect(theirs.size, out).toBe(4);
    for (const r of rows) {
      expect(theirs.get(`${r.brokerName}/${r.queueId}`), out).toEqual({
        brokerOffset: r.brokerOffset,
        consumerOffset: r.consumerOffset,
        client: undefined,
        diff: r.lag,
        inflight: 0,
        lastTime: r.lastTimestamp === 0 ? 'N/A' : dateTime(r.lastTimestamp),
      });
    }
    expect(rows.filter((r) => r.consumerOffset === 0).every((r) => r.lastTimestamp === 0)).toBe(true);
    expect(rows.filter((r) => r.consumerOffset > 0).every((r) => r.lastTimestamp > 0)).toBe(true);
  }, 180_000);

  it("consumerProgress of a running group names each queue's owner, as mqadmin consumerProgress -s true does by its IP", async () => {
    const topic = uniqueName('adm');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    const consumer = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) =>
      seen.record(m.payload.seq),
    );
    const apps: ConsumerApp[] = [
      await harness.app([consumer], { instanceName: uniqueName('a') }),
      await harness.app([consumer], { instanceName: uniqueName('b') }),
    ];
    const owned = (app: ConsumerApp) =>
      app
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic)
        .map((q) => key(q.mq))
        .sort();
    await waitFor(() => apps.every((app) => owned(app).length === 2), { timeoutMs: 60_000 });
    await harness.produce(topic, 40);
    // Every message consumed and its offset committed: nothing moves any more.
    let last: unknown;
    await waitFor(
      async () => {
        const rows = await admin.consumerProgress(group);
        last = rows;
        return seen.unique === 40 && rows.length === 4 && rows.every((r) => r.lag === 0 && r.clientId !== undefined);
      },
      { timeoutMs: 60_000, message: () => JSON.stringify(last) },
    );
    const rows = await admin.consumerProgress(group);
    expect(rows.every((r) => !r.topic.startsWith('%RETRY%'))).toBe(true);
    for (const app of apps)
      expect(
        rows
          .filter((r) => r.clientId === app.clientId)
          .map((r) => `${r.brokerName}/${r.queueId}`)
          .sort(),
      ).toEqual(owned(app));
    const out = await mqadmin(['consumerProgress', ...ns(), '-g', group, '-s', 'true']);
    const theirs = progressRows(out, topic, true);
    expect(theirs.size, out).toBe(4);
    for (const r of rows) {
      expect(theirs.get(`${r.brokerName}/${r.queueId}`), out).toMatchObject({
        brokerOffset: r.brokerOffset,
        consumerOffset: r.consumerOffset,
        client: r.clientId!.split('@')[0],
        diff: 0,
        lastTime: dateTime(r.lastTimestamp),
      });
    }
    await Promise.all(apps.map((a) => a.stop({ timeoutMs: 5_000 })));
  }, 180_000);

  it('topicStats: min and max offset and last update of every queue, as mqadmin topicStatus prints them', async () => {
    const topic = uniqueName('adm');
    await harness.createTopic(topic, 2);
    await harness.produce(topic, 30);
    const stats = await admin.topicStats(topic);
    expect(stats).toHaveLength(4);
    expect(stats.reduce((n, s) => n + s.maxOffset, 0)).toBe(30);
    const out = await mqadmin(['topicStatus', ...ns(), '-t', topic]);
    for (const s of stats) {
      const row = new RegExp(`^${s.mq.brokerName}\\s+${s.mq.queueId}\\s+(\\d+)\\s+(\\d+)\\s+(.*?)\\s*$`, 'm').exec(out);
      expect(row, out).not.toBeNull();
      expect([Number(row![1]), Number(row![2]), row![3]]).toEqual([
        s.minOffset,
        s.maxOffset,
        s.lastUpdateTimestamp > 0 ? humanTime(s.lastUpdateTimestamp) : '',
      ]);
    }
    await expect(admin.topicStats(uniqueName('missing'))).rejects.toMatchObject({
      name: 'BrokerError',
      responseCode: 17,
      kind: 'topic-not-found',
    });
  }, 180_000);

  it("consumerConnections: every member with its address, language and version, and the group's registration, as mqadmin consumerConnection prints them", async () => {
    const topic = uniqueName('adm');
    const group = uniqueName('g');
    // One broker: the members heartbeat only it, so both tools read the same connection of each member.
    await harness.createTopic(topic, 2, ['broker-a']);
    const consumer = consumerClass(
      { group, topic, tags: 't0 || t1', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      () => undefined,
    );
    const apps = [
      await harness.app([consumer], { instanceName: uniqueName('a') }),
      await harness.app([consumer], { instanceName: uniqueName('b') }),
    ];
    await waitFor(
      async () => (await admin.consumerConnections(group).catch(() => undefined))?.connections.length === 2,
      { timeoutMs: 30_000 },
    );
    const found = await admin.consumerConnections(group);
    expect(found.connections.map((c) => c.clientId)).toEqual(apps.map((a) => a.clientId).sort());
    expect(found).toMatchObject({
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    const out = await mqadmin(['consumerConnection', ...ns(), '-g', group]);
    for (const c of found.connections) {
      // MQVersion.getVersionDesc(479) is V5_3_3.
      expect(out).toMatch(
        new RegExp(
          `^${c.clientId.replace(/[.]/g, '\\.')}\\s+${c.clientAddr.replace(/[.]/g, '\\.')}\\s+${c.language}\\s+V5_3_3\\s*$`,
          'm',
        ),
      );
      expect(c.version).toBe(479);
    }
    for (const s of found.subscriptions)
      expect(out).toMatch(new RegExp(`^${s.topic}\\s+${s.expression.replace(/[|*]/g, (x) => `\\${x}`)}\\s*$`, 'm'));
    expect(found.subscriptions.map((s) => s.topic)).toEqual([`%RETRY%${group}`, topic].sort());
    expect(out).toMatch(/^ConsumeType: CONSUME_PASSIVELY$/m);
    expect(out).toMatch(/^MessageModel: CLUSTERING$/m);
    expect(out).toMatch(/^ConsumeFromWhere: CONSUME_FROM_FIRST_OFFSET$/m);
    await Promise.all(apps.map((a) => a.stop({ timeoutMs: 5_000 })));
    await expect(admin.consumerConnections(uniqueName('nobody'))).rejects.toMatchObject({
      name: 'ConsumerNotOnlineError',
    });
  }, 180_000);

  it('queryMessagesByKey and viewMessage find what mqadmin queryMsgByKey and queryMsgById find', async () => {
    const topic = uniqueName('adm');
    await harness.createTopic(topic, 1);
    const shared = uniqueName('key');
    const sent = await send(topic, 6, shared);
    // The broker indexes messages asynchronously (its dispatcher): wait until every message is found.
    let found = await admin.queryMessagesByKey<{ seq: number }>(topic, shared, { begin: 0, end: Date.now() + 60_000 });
    await waitFor(
      async () => {
        found = await admin.queryMessagesByKey<{ seq: number }>(topic, shared, { begin: 0, end: Date.now() + 60_000 });
        return found.length === 6;
      },
      { timeoutMs: 30_000 },
    );
    expect(found.map((m) => m.msgId).sort()).toEqual(sent.map((s) => s.msgId).sort());
    expect(found.every((m) => m.topic === topic && m.keys.includes(shared))).toBe(true);
    const out = await mqadmin(['queryMsgByKey', ...ns(), '-t', topic, '-k', shared]);
    // `#Message ID #QID #Offset`, the message id being the UNIQ_KEY.
    const theirs = [...out.matchAll(/^([0-9A-F]{32})\s+(\d+)\s+(\d+)\s*$/gm)]
      .map((m) => `${m[1]} ${m[2]} ${m[3]}`)
      .sort();
    expect(theirs, out).toEqual(found.map((m) => `${m.msgId} ${m.queueId} ${m.queueOffset}`).sort());
    const one = await admin.queryMessagesByKey<{ seq: number }>(topic, 'k3', { begin: 0, end: Date.now() + 60_000 });
    expect(one.map((m) => m.payload.seq)).toEqual([3]);
    expect(
      await admin.queryMessagesByKey(topic, shared, { begin: 0, end: Date.now() + 60_000, maxNum: 2 }),
    ).toHaveLength(2);

    const target = sent[2]!;
    const byOffset = await admin.viewMessage<{ seq: number }>(target.offsetMsgId);
    const byUniq = await admin.viewMessage<{ seq: number }>(target.msgId, { topic });
    for (const m of [byOffset, byUniq])
      expect([m.msgId, m.offsetMsgId, m.payload.seq, m.queueOffset]).toEqual([
        target.msgId,
        target.offsetMsgId,
        2,
        target.queueOffset,
      ]);
    for (const id of [target.offsetMsgId, target.msgId]) {
      const shown = await mqadmin(['queryMsgById', ...ns(), '-t', topic, '-i', id]);
      const field = (name: string) => new RegExp(`^${name}:\\s+(.*?)\\s*$`, 'm').exec(shown)?.[1];
      expect(
        [
          field('OffsetID'),
          field('Topic'),
          field('Tags'),
          field('Keys'),
          field('Queue ID'),
          field('Queue Offset'),
          field('CommitLog Offset'),
          field('Store Host'),
          field('System Flag'),
        ],
        shown,
      ).toEqual([
        byOffset.offsetMsgId,
        topic,
        `[${byOffset.tags}]`,
        `[${byOffset.keys.join(' ')}]`,
        String(byOffset.queueId),
        String(byOffset.queueOffset),
        String(byOffset.commitLogOffset),
        byOffset.storeHost,
        String(byOffset.record.sysFlag),
      ]);
    }
    await expect(admin.viewMessage(target.msgId)).rejects.toBeInstanceOf(MessageNotFoundError);
    const beyond = `${target.offsetMsgId.slice(0, 16)}0000FFFFFFFFFF00`;
    await expect(admin.viewMessage(beyond)).rejects.toBeInstanceOf(MessageNotFoundError);
  }, 180_000);

  it('createSubscriptionGroup writes the SubscriptionGroupConfig mqadmin getConsumerConfig reads back, on every master or the listed ones', async () => {
    const group = uniqueName('g');
    await admin.createSubscriptionGroup(group, {
      retryMaxTimes: 5,
      consumeBroadcastEnable: false,
      consumeMessageOrderly: true,
      retryQueueNums: 2,
    });
    const only = uniqueName('g');
    await admin.createSubscriptionGroup(only, { brokers: ['broker-b'], consumeEnable: false });
    const sections = async (g: string) => {
      const out = await mqadmin(['getConsumerConfig', ...ns(), '-g', g]);
      const bySection = new Map<string, Map<string, string>>();
      let current: Map<string, string> | undefined;
      for (const line of out.split('\n')) {
        const head = /^=+([^:=]+):([^=]+)=+$/.exec(line.trim());
        if (head) {
          current = new Map();
          bySection.set(head[2]!, current);
        }
        const kv = /^(\w+)\s+=\s+(.*)$/.exec(line.trim());
        if (kv && current) current.set(kv[1]!, kv[2]!);
      }
      return bySection;
    };
    const all = await sections(group);
    expect([...all.keys()].sort()).toEqual(['broker-a', 'broker-b']);
    for (const fields of all.values()) {
      expect(
        Object.fromEntries(
          [...fields].filter(([k]) =>
            [
              'groupName',
              'consumeEnable',
              'consumeFromMinEnable',
              'consumeBroadcastEnable',
              'consumeMessageOrderly',
              'retryQueueNums',
              'retryMaxTimes',
              'brokerId',
              'whichBrokerWhenConsumeSlowly',
              'notifyConsumerIdsChangedEnable',
              'consumeTimeoutMinute',
            ].includes(k),
          ),
        ),
      ).toEqual({
        groupName: group,
        consumeEnable: 'true',
        consumeFromMinEnable: 'true',
        consumeBroadcastEnable: 'false',
        consumeMessageOrderly: 'true',
        retryQueueNums: '2',
        retryMaxTimes: '5',
        brokerId: '0',
        whichBrokerWhenConsumeSlowly: '1',
        notifyConsumerIdsChangedEnable: 'true',
        consumeTimeoutMinute: '15',
      });
    }
    const one = await sections(only);
    expect([...one.keys()]).toEqual(['broker-b']);
    expect(one.get('broker-b')!.get('consumeEnable')).toBe('false');
    await expect(admin.createSubscriptionGroup(uniqueName('g'), { brokers: ['broker-z'] })).rejects.toMatchObject({
      name: 'ConfigurationError',
      option: 'brokers',
    });
  }, 180_000);

  it("topics: what mqadmin topicList prints, with RocketMQ's own topics left out by { system: false }", async () => {
    const topic = uniqueName('adm');
    await harness.createTopic(topic, 1);
    const before = await admin.topics();
    const out = await mqadmin(['topicList', ...ns()]);
    const after = await admin.topics();
    // One name a line, after the tool's own logging set-up lines (which have spaces).
    const theirs = out
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^[%|a-zA-Z0-9_-]+$/.test(l))
      .sort();
    expect(theirs).toEqual(before);
    expect(after).toEqual(before);
    // No TBW102: the test cluster runs with autoCreateTopicEnable=false.
    expect(before).toEqual(
      expect.arrayContaining([
        topic,
        'SCHEDULE_TOPIC_XXXX',
        cluster.clusterName,
        `${cluster.clusterName}_REPLY_TOPIC`,
        'broker-a',
        'broker-b',
      ]),
    );
    const user = await admin.topics({ system: false });
    expect(user).toContain(topic);
    expect(
      user.filter(
        (t) =>
          [
            'TBW102',
            'SCHEDULE_TOPIC_XXXX',
            cluster.clusterName,
            `${cluster.clusterName}_REPLY_TOPIC`,
            'broker-a',
            'broker-b',
          ].includes(t) ||
          t.startsWith('rmq_sys_') ||
          t.startsWith('RMQ_SYS_'),
      ),
    ).toEqual([]);
  }, 180_000);
});
