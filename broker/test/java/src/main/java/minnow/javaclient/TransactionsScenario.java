package minnow.javaclient;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A transactional producer (transactional.id). The broker does not implement transactions
 * (AddPartitionsToTxn, EndTxn, transaction coordinator), so the client must fail with an
 * exception at a bounded step rather than hang or appear to commit. Reports the first step
 * that threw and the exception.
 */
final class TransactionsScenario {
  private TransactionsScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("txn");
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    String step = "constructor";
    // initTransactions waits up to max.block.ms for a transaction coordinator.
    Map<String, Object> cfg = Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, clients.name("txn-id"), ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
    try (KafkaProducer<String, String> p = clients.producer(cfg)) {
      step = "initTransactions";
      p.initTransactions();
      step = "beginTransaction";
      p.beginTransaction();
      step = "send";
      p.send(new ProducerRecord<>(topic, 0, "k", "v")).get();
      step = "commitTransaction";
      p.commitTransaction();
      out.put("outcome", "committed");
    } catch (Exception e) {
      out.put("outcome", "error");
      out.put("failedAt", step);
      out.put("error", Errors.kind(e));
      out.put("message", Errors.describe(e));
    }
    return out;
  }
}
