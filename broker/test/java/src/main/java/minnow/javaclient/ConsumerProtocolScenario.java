package minnow.javaclient;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A consumer that asks for the KIP-848 protocol (group.protocol=consumer), which needs
 * ConsumerGroupHeartbeat (key 68). Reports what poll() did within POLL_FOR: delivered records,
 * threw (the exception), or stayed silent. The broker does not implement key 68, so the client
 * must throw.
 */
final class ConsumerProtocolScenario {
  static final Duration POLL_FOR = Duration.ofSeconds(15);

  private ConsumerProtocolScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("kip848");
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> p = clients.producer(Map.of())) {
      Future<RecordMetadata> f = p.send(new ProducerRecord<>(topic, 0, "k", "v"));
      f.get();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    long start = System.nanoTime();
    // A group.protocol the client does not know fails in the constructor: report that too.
    try (KafkaConsumer<String, String> c = clients.consumer(clients.name("kip848-g"), Map.of("group.protocol", "consumer"))) {
      c.subscribe(List.of(topic));
      int records = 0;
      long deadline = start + POLL_FOR.toNanos();
      try {
        while (records == 0 && System.nanoTime() < deadline) records += c.poll(Duration.ofMillis(500)).count();
        out.put("outcome", records > 0 ? "records" : "silent");
        out.put("records", records);
      } catch (Exception e) {
        out.put("outcome", "error");
        out.put("error", Errors.kind(e));
        out.put("message", Errors.describe(e));
      }
      out.put("pollMs", (System.nanoTime() - start) / 1_000_000);
    } catch (Exception e) {
      out.put("outcome", "error");
      out.put("error", Errors.kind(e));
      out.put("message", Errors.describe(e));
    }
    return out;
  }
}
