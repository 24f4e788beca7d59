package minnow.javaclient;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Record sizes and offset lookups on topic PREFIX-fetch: a 900 KB record (under Kafka's default
 * max.message.bytes of 1 MiB) that a consumer with 64 KiB fetch limits still receives (KIP-74:
 * the first batch is returned whole); a 1.5 MB record the broker must refuse (RecordTooLarge);
 * and the consumer's beginningOffsets/endOffsets/offsetsForTimes.
 */
final class FetchScenario {
  static final int LARGE = 900 * 1024;
  static final int TOO_LARGE = 1_500_000;

  private FetchScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("fetch");
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    long t0 = System.currentTimeMillis() - 60_000;
    try (KafkaProducer<String, String> p = clients.producer(Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 * 1024 * 1024))) {
      p.send(new ProducerRecord<>(topic, 0, t0, "small-0", "s")).get();
      p.send(new ProducerRecord<>(topic, 0, t0 + 10_000, "large", "L".repeat(LARGE))).get();
      p.send(new ProducerRecord<>(topic, 0, t0 + 20_000, "small-2", "s")).get();
      try {
        p.send(new ProducerRecord<>(topic, 0, "too-large", "T".repeat(TOO_LARGE))).get();
        out.put("tooLarge", "accepted");
      } catch (Exception e) {
        out.put("tooLarge", Errors.kind(e));
      }
    }
    Map<String, Object> small = Map.of(
        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 * 1024,
        ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 * 1024);
    try (KafkaConsumer<String, String> c = clients.consumer(null, small)) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      List<Map<String, Object>> got = Records.pollUntil(c, 3, Duration.ofSeconds(15));
      out.put("consumed", got.stream().map(r -> Map.of("offset", r.get("offset"), "key", r.get("key"), "valueLength", ((String) r.get("value")).length())).toList());
      out.put("beginningOffsets", c.beginningOffsets(List.of(tp)).get(tp));
      out.put("endOffsets", c.endOffsets(List.of(tp)).get(tp));
      Map<String, Object> times = new LinkedHashMap<>();
      for (long delta : new long[] {-1, 5_000, 10_000, 15_000, 3_600_000}) {
        OffsetAndTimestamp ot = c.offsetsForTimes(Map.of(tp, t0 + delta)).get(tp);
        times.put(Long.toString(delta), ot == null ? null : Map.of("offset", ot.offset(), "timestamp", ot.timestamp() - t0));
      }
      out.put("offsetsForTimes", times);
    }
    return out;
  }
}
