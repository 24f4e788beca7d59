package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Exactly-once consume-transform-produce as Kafka Streams does it, with whatever transaction
 * version the client picks from the broker's finalized transaction.version (KIP-890 part 2 for a
 * 4.x client at level 2). PREFIX-tv2-in (2 partitions) gets RECORDS plain records; a group reads
 * them read_committed and, per poll, one transaction writes "out-VALUE" to PREFIX-tv2-out (2
 * partitions) with the consumed offsets; one transaction in the middle is aborted and its records
 * written again. Then a zombie: a second producer with the same transactional.id fences the first
 * in the middle of a transaction. Reports the producer epoch (Admin.describeTransactions) after
 * initTransactions and after each commit/abort, what read_committed and read_uncommitted read of
 * the output, the group's committed offsets and the features Admin.describeFeatures sees.
 */
final class TransactionsV2Scenario {
  private TransactionsV2Scenario() {}

  static final int RECORDS = 40;

  static Map<String, Object> run(Clients clients) throws Exception {
    String in = clients.name("tv2-in");
    String out = clients.name("tv2-out");
    String group = clients.name("tv2-group");
    String txnId = clients.name("tv2-txn");
    Map<String, Object> result = new LinkedHashMap<>();
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(in, 2, (short) 1), new NewTopic(out, 2, (short) 1))).all().get();
      FeatureMetadata features = admin.describeFeatures().featureMetadata().get();
      Map<String, Object> f = new TreeMap<>();
      features.finalizedFeatures().forEach((name, r) -> f.put("finalized " + name, r.maxVersionLevel()));
      features.supportedFeatures().forEach((name, r) -> f.put("supported " + name, r.minVersion() + "-" + r.maxVersion()));
      result.put("features", f);
    }
    try (KafkaProducer<String, String> plain = clients.producer(Map.of())) {
      for (int i = 0; i < RECORDS; i++) plain.send(new ProducerRecord<>(in, i % 2, "k" + i, "v" + i));
      plain.flush();
    }

    List<Integer> epochs = new ArrayList<>();
    Map<String, Object> cfg = Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
    Map<String, Object> readCommitted = Map.of(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 7);
    int transactions = 0;
    int consumed = 0;
    try (Admin admin = clients.admin();
        KafkaProducer<String, String> producer = clients.producer(cfg);
        KafkaConsumer<String, String> consumer = clients.consumer(group, readCommitted)) {
      producer.initTransactions();
      epochs.add(epoch(admin, txnId));
      consumer.subscribe(List.of(in));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      boolean abortedOnce = false;
      while (consumed < RECORDS && System.nanoTime() < deadline) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
        if (records.isEmpty()) continue;
        if (!abortedOnce && consumed > 0) {
          // An aborted transaction: its records never reach read_committed, the batch is redone.
          abortedOnce = true;
          producer.beginTransaction();
          for (ConsumerRecord<String, String> r : records) producer.send(new ProducerRecord<>(out, r.partition(), r.key(), "aborted-" + r.value()));
          producer.flush();
          producer.abortTransaction();
          epochs.add(epoch(admin, txnId));
        }
        producer.beginTransaction();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (ConsumerRecord<String, String> r : records) {
          producer.send(new ProducerRecord<>(out, r.partition(), r.key(), "out-" + r.value()));
          offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
        producer.commitTransaction();
        transactions++;
        consumed += records.count();
        epochs.add(epoch(admin, txnId));
      }

      // The zombie: begun, one record acknowledged, then fenced by a new instance.
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(out, 0, "z", "zombie")).get();
      try (KafkaProducer<String, String> successor = clients.producer(cfg)) {
        successor.initTransactions();
        try {
          producer.send(new ProducerRecord<>(out, 1, "z", "zombie-late")).get();
          producer.commitTransaction();
          result.put("zombieCommit", "committed");
        } catch (Exception e) {
          result.put("zombieCommit", Errors.kind(e));
        }
        successor.beginTransaction();
        successor.send(new ProducerRecord<>(out, 1, "s", "successor"));
        successor.commitTransaction();
      }
      result.put("afterZombie", describe(admin, txnId));
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      Map<String, Long> groupOffsets = new TreeMap<>();
      committed.forEach((tp, o) -> groupOffsets.put(tp.toString(), o.offset()));
      result.put("groupOffsets", groupOffsets);
    }
    result.put("consumed", consumed);
    result.put("transactions", transactions);
    result.put("epochs", epochs);
    result.put("readCommitted", read(clients, out, "read_committed"));
    result.put("readUncommitted", read(clients, out, "read_uncommitted"));
    return result;
  }

  private static int epoch(Admin admin, String txnId) throws Exception {
    return admin.describeTransactions(List.of(txnId)).description(txnId).get().producerEpoch();
  }

  private static Map<String, Object> describe(Admin admin, String txnId) throws Exception {
    TransactionDescription d = admin.describeTransactions(List.of(txnId)).description(txnId).get();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("state", d.state().toString());
    out.put("producerEpoch", d.producerEpoch());
    out.put("partitions", d.topicPartitions().size());
    return out;
  }

  /** Every value of both partitions from the beginning, at one isolation level, sorted. */
  private static List<String> read(Clients clients, String topic, String isolation) {
    TopicPartition p0 = new TopicPartition(topic, 0);
    TopicPartition p1 = new TopicPartition(topic, 1);
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> c = clients.consumer(null, Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation))) {
      c.assign(List.of(p0, p1));
      c.seekToBeginning(List.of(p0, p1));
      Map<TopicPartition, Long> ends = c.endOffsets(List.of(p0, p1));
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (System.nanoTime() < deadline && (c.position(p0) < ends.get(p0) || c.position(p1) < ends.get(p1))) {
        c.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
    }
    values.sort(null);
    return values;
  }
}
