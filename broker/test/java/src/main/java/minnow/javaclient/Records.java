package minnow.javaclient;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;

/** Consumed records as plain maps, and bounded poll loops. */
final class Records {
  private Records() {}

  static Map<String, Object> toMap(ConsumerRecord<String, String> r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("partition", r.partition());
    m.put("offset", r.offset());
    m.put("key", r.key());
    m.put("value", r.value());
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header h : r.headers()) headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
    m.put("headers", headers);
    m.put("timestampType", r.timestampType().toString());
    return m;
  }

  /** Polls until `count` records arrived or `timeout` passed; returns what arrived. */
  static List<Map<String, Object>> pollUntil(KafkaConsumer<String, String> consumer, int count, Duration timeout) {
    List<Map<String, Object>> out = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (out.size() < count && System.nanoTime() < deadline) {
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) out.add(toMap(r));
    }
    return out;
  }
}
