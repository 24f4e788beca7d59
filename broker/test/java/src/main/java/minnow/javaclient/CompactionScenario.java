package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A compacted topic PREFIX-compaction (issue 17): an idempotent lz4 producer writes 20 keys 10
 * times, a second one each key once more and deletes two, then a third writes a last record (the
 * head, never cleaned).
 * Reads from the beginning, with small fetches, until the log is compacted (latest value per key
 * only) or 30 s pass: offset gaps and the empty batch kept for the first producer must not stall
 * the consumer. Returns the last read, the position reached and beginning/end offsets.
 */
final class CompactionScenario {
  static final int KEYS = 20;
  static final int ROUNDS = 10;

  private CompactionScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("compaction");
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin admin = clients.admin()) {
      NewTopic t = new NewTopic(topic, 1, (short) 1)
          .configs(Map.of("cleanup.policy", "compact", "min.compaction.lag.ms", "0", "min.cleanable.dirty.ratio", "0.01"));
      admin.createTopics(List.of(t)).all().get();
    }
    Map<String, Object> idempotentLz4 =
        Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    int n = 0;
    try (KafkaProducer<String, String> p = clients.producer(idempotentLz4)) {
      for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < KEYS; k++, n++) p.send(new ProducerRecord<>(topic, 0, "k" + k, "k" + k + ":" + n));
      p.flush();
    }
    // A second producer rewrites every key: the first one's batches lose all their records, and
    // its last batch stays, empty, for its sequence numbers.
    try (KafkaProducer<String, String> p = clients.producer(idempotentLz4)) {
      for (int k = 0; k < KEYS; k++, n++) p.send(new ProducerRecord<>(topic, 0, "k" + k, "k" + k + ":" + n));
      p.send(new ProducerRecord<>(topic, 0, "k0", null));
      p.send(new ProducerRecord<>(topic, 0, "k1", null));
      p.flush();
    }
    try (KafkaProducer<String, String> p = clients.producer(Map.of())) {
      p.send(new ProducerRecord<>(topic, 0, "sentinel", "end")).get();
    }
    Map<String, Object> small = Map.of(
        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1024,
        ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 1024);
    Map<String, Object> out = new LinkedHashMap<>();
    try (KafkaConsumer<String, String> c = clients.consumer(null, small)) {
      c.assign(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      List<Map<String, Object>> got = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      // Compacted: the 20 keys' latest records (two of them tombstones) and the sentinel.
      while (System.nanoTime() < deadline) {
        got = new ArrayList<>();
        c.seekToBeginning(List.of(tp));
        long readUntil = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (c.position(tp) < end && System.nanoTime() < readUntil) {
          for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) got.add(Map.of(
              "offset", r.offset(), "key", r.key(), "value", r.value() == null ? "<null>" : r.value()));
        }
        if (got.size() == KEYS + 1) break;
        Thread.sleep(200);
      }
      out.put("records", got);
      out.put("position", c.position(tp));
      out.put("beginningOffset", c.beginningOffsets(List.of(tp)).get(tp));
      out.put("endOffset", end);
    }
    return out;
  }
}
