package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;

/**
 * KIP-932 share groups with KafkaShareConsumer: two members share one partition's records (each
 * delivered once when all are accepted); a released record comes back with a higher delivery count;
 * a rejected record is not delivered again; a record released at every delivery is archived after
 * group.share.delivery.count.limit (5) deliveries. Every group starts at the earliest offset
 * (share.auto.offset.reset, a GROUP config). Reports what the client saw. Built for the 3.x line
 * too (its early-access share consumer compiles), but run with kafka-clients 4.x only.
 */
final class ShareScenario {
  static final Duration POLL = Duration.ofMillis(300);
  static final long STEP_MS = 40_000;
  static final Map<String, Object> EXPLICIT = Map.of("share.acknowledgement.mode", "explicit");

  private ShareScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("shared", shared(clients));
    out.put("release", release(clients));
    out.put("limit", limit(clients));
    return out;
  }

  /** ConsumerRecord.deliveryCount() exists from kafka-clients 4.0: by reflection so the 3.x build compiles. */
  private static Object deliveryCount(ConsumerRecord<String, String> r) throws Exception {
    return ((java.util.Optional<?>) ConsumerRecord.class.getMethod("deliveryCount").invoke(r)).orElse(null);
  }

  static String topicWith(Clients clients, String suffix, String... values) throws Exception {
    String topic = clients.name(suffix);
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    // Each record in a batch of its own: a share fetch acquires whole batches (max.poll.records is
    // a soft limit aligned to batches, on Kafka as on minnow), and the scenarios share records.
    try (KafkaProducer<String, String> p = clients.producer(Map.of())) {
      for (String v : values) {
        p.send(new ProducerRecord<>(topic, 0, "k", v));
        p.flush();
      }
    }
    return topic;
  }

  static void earliest(Clients clients, String group) throws Exception {
    try (Admin admin = clients.admin()) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.valueOf("GROUP"), group);
      AlterConfigOp op = new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET);
      admin.incrementalAlterConfigs(Map.of(r, (Collection<AlterConfigOp>) List.of(op))).all().get();
    }
  }

  /** Two members of one group on a one-partition topic, both accepting (implicit acknowledgement). */
  private static Map<String, Object> shared(Clients clients) throws Exception {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 40; i++) values.add("v" + i);
    String topic = topicWith(clients, "share-shared", values.toArray(new String[0]));
    String group = clients.name("share-shared-group");
    earliest(clients, group);
    Map<String, Integer> deliveries = new TreeMap<>();
    int byA = 0;
    int byB = 0;
    Map<String, Object> small = Map.of("max.poll.records", 5);
    try (KafkaShareConsumer<String, String> a = clients.shareConsumer(group, small);
        KafkaShareConsumer<String, String> b = clients.shareConsumer(group, small)) {
      a.subscribe(List.of(topic));
      b.subscribe(List.of(topic));
      long end = System.currentTimeMillis() + STEP_MS;
      while (deliveries.size() < values.size() && System.currentTimeMillis() < end) {
        for (ConsumerRecord<String, String> r : a.poll(POLL)) {
          deliveries.merge(r.value(), 1, Integer::sum);
          byA++;
        }
        for (ConsumerRecord<String, String> r : b.poll(POLL)) {
          deliveries.merge(r.value(), 1, Integer::sum);
          byB++;
        }
      }
      a.commitSync();
      b.commitSync();
      // A little longer: nothing accepted may come back.
      long quiet = System.currentTimeMillis() + 3_000;
      while (System.currentTimeMillis() < quiet) {
        for (ConsumerRecord<String, String> r : a.poll(POLL)) deliveries.merge(r.value(), 1, Integer::sum);
        for (ConsumerRecord<String, String> r : b.poll(POLL)) deliveries.merge(r.value(), 1, Integer::sum);
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("produced", values.size());
    out.put("distinct", deliveries.size());
    out.put("deliveries", deliveries.values().stream().mapToInt(Integer::intValue).sum());
    out.put("byA", byA);
    out.put("byB", byB);
    return out;
  }

  /** A released record is delivered again (delivery count 2); once accepted, a new member sees nothing. */
  private static Map<String, Object> release(Clients clients) throws Exception {
    String topic = topicWith(clients, "share-release", "job-1");
    String group = clients.name("share-release-group");
    earliest(clients, group);
    List<String> seen = new ArrayList<>();
    try (KafkaShareConsumer<String, String> c = clients.shareConsumer(group, EXPLICIT)) {
      c.subscribe(List.of(topic));
      long end = System.currentTimeMillis() + STEP_MS;
      while (seen.size() < 2 && System.currentTimeMillis() < end) {
        for (ConsumerRecord<String, String> r : c.poll(POLL)) {
          seen.add(r.value() + "#" + deliveryCount(r));
          c.acknowledge(r, seen.size() == 1 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
        }
        c.commitSync();
      }
    }
    List<String> afterAccept = new ArrayList<>();
    try (KafkaShareConsumer<String, String> d = clients.shareConsumer(group, EXPLICIT)) {
      d.subscribe(List.of(topic));
      long end = System.currentTimeMillis() + 3_000;
      while (System.currentTimeMillis() < end) {
        for (ConsumerRecord<String, String> r : d.poll(POLL)) {
          afterAccept.add(r.value());
          d.acknowledge(r, AcknowledgeType.ACCEPT);
        }
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("seen", seen);
    out.put("afterAccept", afterAccept);
    return out;
  }

  /** A rejected record is archived at once; one released at every delivery after the limit (5). */
  private static Map<String, Object> limit(Clients clients) throws Exception {
    String topic = topicWith(clients, "share-limit", "rejected", "poison");
    String group = clients.name("share-limit-group");
    earliest(clients, group);
    List<String> seen = new ArrayList<>();
    try (KafkaShareConsumer<String, String> c = clients.shareConsumer(group, EXPLICIT)) {
      c.subscribe(List.of(topic));
      long end = System.currentTimeMillis() + STEP_MS;
      long lastRecord = System.currentTimeMillis();
      // Until nothing came for 3 s after the first record (archived records are never delivered).
      while (System.currentTimeMillis() < end && (seen.isEmpty() || System.currentTimeMillis() - lastRecord < 3_000)) {
        for (ConsumerRecord<String, String> r : c.poll(POLL)) {
          seen.add(r.value() + "#" + deliveryCount(r));
          c.acknowledge(r, r.value().equals("rejected") ? AcknowledgeType.REJECT : AcknowledgeType.RELEASE);
          lastRecord = System.currentTimeMillis();
        }
        c.commitSync();
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("seen", seen);
    return out;
  }
}
