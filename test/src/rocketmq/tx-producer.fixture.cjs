'use strict';
/*
 * A transactional producer run as a real child process by transaction.spec.ts, to be SIGKILLed with a half
 * message open: it sends one message in a transaction whose local part answers UNKNOW, reports it, and waits.
 * Its own check-backs answer UNKNOW too, so only another instance of the group can settle the message.
 * Environment: NAMESRV, TOPIC, GROUP, INSTANCE, BODY. Reports over IPC: { type: 'sent', msgId, state }.
 */
const { createProducer } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

const { NAMESRV, TOPIC, GROUP, INSTANCE, BODY } = process.env;

async function main() {
  const producer = await createProducer({
    transport: rocketmqTransport({ nameServer: NAMESRV }),
    group: GROUP,
    profile: 'fast',
    instanceName: INSTANCE,
    sendMsgTimeout: 10_000,
    transactionListener: { checkLocalTransaction: () => 'UNKNOW' },
  });
  const { sendResult, state } = await producer.sendInTransaction({ topic: TOPIC, body: BODY }, () => 'UNKNOW');
  process.send({ type: 'sent', msgId: sendResult.msgId, state });
  process.on('disconnect', () => process.exit(0));
}

main().catch((error) => {
  process.send?.({ type: 'error', message: String(error?.stack) });
  process.exit(1);
});
