package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Transactions with the reference client (transaction version 2 for a 4.x client, KIP-890 part 2,
 * as minnow finalizes transaction.version 2; version 1 for a 3.x client: TransactionsV2Scenario
 * tells them apart). On topic PREFIX-txn (2 partitions): a committed
 * transaction over both partitions with offsets sent for group PREFIX-txn-group, an aborted one,
 * then a second producer with the same transactional.id fences the first (its next commit fails
 * with ProducerFencedException) and commits its own. Reports what a read_committed and a
 * read_uncommitted consumer read, the end offsets each sees, the group's committed offset and
 * the Admin's describeTransactions.
 */
final class TransactionsScenario {
  private TransactionsScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("txn");
    String group = clients.name("txn-group");
    String txnId = clients.name("txn-id");
    TopicPartition p0 = new TopicPartition(topic, 0);
    TopicPartition p1 = new TopicPartition(topic, 1);
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    Map<String, Object> cfg = Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
    try (KafkaProducer<String, String> first = clients.producer(cfg)) {
      first.initTransactions();
      first.beginTransaction();
      for (int i = 0; i < 3; i++) {
        first.send(new ProducerRecord<>(topic, 0, "k" + i, "committed-0-" + i));
        first.send(new ProducerRecord<>(topic, 1, "k" + i, "committed-1-" + i));
      }
      first.sendOffsetsToTransaction(Map.of(p0, new OffsetAndMetadata(42, "txn-meta")), new ConsumerGroupMetadata(group));
      first.commitTransaction();

      first.beginTransaction();
      first.send(new ProducerRecord<>(topic, 0, "a", "aborted-0"));
      first.send(new ProducerRecord<>(topic, 1, "a", "aborted-1"));
      first.flush();
      first.abortTransaction();

      first.beginTransaction();
      first.send(new ProducerRecord<>(topic, 0, "z", "zombie-0")).get();
      try (KafkaProducer<String, String> second = clients.producer(cfg)) {
        // The new epoch aborts first's ongoing transaction and fences it.
        second.initTransactions();
        try {
          first.commitTransaction();
          out.put("zombieCommit", "committed");
        } catch (Exception e) {
          out.put("zombieCommit", Errors.kind(e));
        }
        second.beginTransaction();
        second.send(new ProducerRecord<>(topic, 1, "s", "second-1"));
        second.commitTransaction();
      }
    }
    out.put("readCommitted", read(clients, topic, "read_committed"));
    out.put("readUncommitted", read(clients, topic, "read_uncommitted"));
    try (Admin admin = clients.admin()) {
      OffsetAndMetadata committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(p0);
      out.put("groupOffset", committed == null ? null : committed.offset());
      out.put("groupMetadata", committed == null ? null : committed.metadata());
      TransactionDescription d = admin.describeTransactions(List.of(txnId)).description(txnId).get();
      out.put("describedState", d.state().toString());
      out.put("describedEpoch", d.producerEpoch());
      out.put("describedPartitions", d.topicPartitions().size());
    }
    return out;
  }

  /** Every value of both partitions from the beginning, and the end offsets, at one isolation level. */
  private static Map<String, Object> read(Clients clients, String topic, String isolation) {
    TopicPartition p0 = new TopicPartition(topic, 0);
    TopicPartition p1 = new TopicPartition(topic, 1);
    Map<String, Object> out = new LinkedHashMap<>();
    try (KafkaConsumer<String, String> c = clients.consumer(null, Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation))) {
      c.assign(List.of(p0, p1));
      c.seekToBeginning(List.of(p0, p1));
      Map<TopicPartition, Long> ends = c.endOffsets(List.of(p0, p1));
      List<String> values = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      // Until the position reaches the end offset of both partitions (control batches included).
      while (System.nanoTime() < deadline && (c.position(p0) < ends.get(p0) || c.position(p1) < ends.get(p1))) {
        c.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
      values.sort(null);
      out.put("values", values);
      out.put("end0", ends.get(p0));
      out.put("end1", ends.get(p1));
      out.put("position0", c.position(p0));
      out.put("position1", c.position(p1));
    }
    return out;
  }
}
