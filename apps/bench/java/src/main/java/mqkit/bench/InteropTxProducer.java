package mqkit.bench;

import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * RocketMQ's own TransactionMQProducer for the interop test: sends `count` messages with bodies "<prefix>-<i>" in
 * transactions whose local part commits the even ones and rolls back the odd ones (check-backs answer the same).
 * Prints "SENT {msgId,state,status}" per message, then RESULT; exits 1 when a send failed.
 *
 * Args: namesrvAddr topic producerGroup count prefix
 */
public final class InteropTxProducer {
    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: InteropTxProducer namesrvAddr topic producerGroup count prefix");
            System.exit(2);
        }
        TransactionMQProducer producer = new TransactionMQProducer(args[2]);
        producer.setNamesrvAddr(args[0]);
        producer.setSendMsgTimeout(15_000);
        producer.setTransactionListener(new TransactionListener() {
            @Override
            public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
                return outcome(msg);
            }

            @Override
            public LocalTransactionState checkLocalTransaction(MessageExt msg) {
                return outcome(msg);
            }
        });
        producer.start();
        int count = Integer.parseInt(args[3]);
        String failure = null;
        for (int i = 0; i < count && failure == null; i++) {
            try {
                Message message = new Message(args[1], (args[4] + "-" + i).getBytes(StandardCharsets.UTF_8));
                TransactionSendResult result = producer.sendMessageInTransaction(message, null);
                System.out.println("SENT {\"msgId\":" + JsonText.quote(result.getMsgId())
                    + ",\"state\":" + JsonText.quote(result.getLocalTransactionState().name())
                    + ",\"status\":" + JsonText.quote(result.getSendStatus().name()) + "}");
            } catch (Exception e) {
                failure = e.toString();
            }
        }
        BenchReport report = new BenchReport().put("client", "java-interop-tx-producer");
        if (failure != null) report.put("error", failure);
        report.print();
        producer.shutdown();
        System.exit(failure == null ? 0 : 1);
    }

    private static LocalTransactionState outcome(Message msg) {
        String body = new String(msg.getBody(), StandardCharsets.UTF_8);
        int i = Integer.parseInt(body.substring(body.lastIndexOf('-') + 1));
        return i % 2 == 0 ? LocalTransactionState.COMMIT_MESSAGE : LocalTransactionState.ROLLBACK_MESSAGE;
    }
}
