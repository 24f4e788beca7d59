package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * KIP-932 share groups under a group's own settings: a record whose acquisition lock (the group's
 * share.record.lock.duration.ms, 2 s; the broker's minimum lowered to 1 s) ends while its member
 * holds it is delivered to the other member with delivery count 2; a group with
 * share.isolation.level=read_committed never sees the records of an aborted transaction, one with
 * read_uncommitted does. Reports what the clients saw. kafka-clients 4.x only.
 */
final class ShareSemanticsScenario {
  static final Duration POLL = Duration.ofMillis(300);
  static final long STEP_MS = 40_000;
  static final Map<String, Object> EXPLICIT = Map.of("share.acknowledgement.mode", "explicit");

  private ShareSemanticsScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("lockExpiry", lockExpiry(clients));
    out.put("isolation", isolation(clients));
    return out;
  }

  private static Object deliveryCount(ConsumerRecord<String, String> r) throws Exception {
    return ((java.util.Optional<?>) ConsumerRecord.class.getMethod("deliveryCount").invoke(r)).orElse(null);
  }

  private static String topic(Clients clients, String suffix) throws Exception {
    String topic = clients.name(suffix);
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    return topic;
  }

  private static void groupConfigs(Clients clients, String group, Map<String, String> configs) throws Exception {
    try (Admin admin = clients.admin()) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.valueOf("GROUP"), group);
      List<AlterConfigOp> ops = new ArrayList<>();
      configs.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
      admin.incrementalAlterConfigs(Map.of(r, (Collection<AlterConfigOp>) ops)).all().get();
    }
  }

  /** A holds the record and never acknowledges it; after the lock ends B gets it (2nd delivery). */
  private static Map<String, Object> lockExpiry(Clients clients) throws Exception {
    String topic = topic(clients, "share-lock");
    String group = clients.name("share-lock-group");
    groupConfigs(clients, group, Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms", "2000"));
    try (KafkaProducer<String, String> p = clients.producer(Map.of())) {
      p.send(new ProducerRecord<>(topic, 0, "k", "job")).get();
    }
    List<String> byA = new ArrayList<>();
    List<String> byB = new ArrayList<>();
    try (KafkaShareConsumer<String, String> a = clients.shareConsumer(group, EXPLICIT);
        KafkaShareConsumer<String, String> b = clients.shareConsumer(group, EXPLICIT)) {
      a.subscribe(List.of(topic));
      long end = System.currentTimeMillis() + STEP_MS;
      while (byA.isEmpty() && System.currentTimeMillis() < end) {
        for (ConsumerRecord<String, String> r : a.poll(POLL)) byA.add(r.value() + "#" + deliveryCount(r));
      }
      // A keeps its membership (its heartbeats run in the background) but never acknowledges.
      b.subscribe(List.of(topic));
      while (byB.isEmpty() && System.currentTimeMillis() < end) {
        for (ConsumerRecord<String, String> r : b.poll(POLL)) {
          byB.add(r.value() + "#" + deliveryCount(r));
          b.acknowledge(r, AcknowledgeType.ACCEPT);
        }
      }
      b.commitSync();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("byA", byA);
    out.put("byB", byB);
    return out;
  }

  /** c1 committed, a1/a2 aborted, c2 committed: what a read_committed and a read_uncommitted group see. */
  private static Map<String, Object> isolation(Clients clients) throws Exception {
    String topic = topic(clients, "share-txn");
    try (KafkaProducer<String, String> p = clients.producer(Map.of("transactional.id", clients.name("share-txn-id")))) {
      p.initTransactions();
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, 0, "k", "c1"));
      p.commitTransaction();
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, 0, "k", "a1"));
      p.send(new ProducerRecord<>(topic, 0, "k", "a2"));
      p.flush();
      p.abortTransaction();
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, 0, "k", "c2"));
      p.commitTransaction();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    for (String level : List.of("read_committed", "read_uncommitted")) {
      String group = clients.name("share-txn-" + level);
      groupConfigs(clients, group, Map.of("share.auto.offset.reset", "earliest", "share.isolation.level", level));
      List<String> seen = new ArrayList<>();
      try (KafkaShareConsumer<String, String> c = clients.shareConsumer(group, Map.of())) {
        c.subscribe(List.of(topic));
        long end = System.currentTimeMillis() + STEP_MS;
        while (!seen.contains("c2") && System.currentTimeMillis() < end) {
          for (ConsumerRecord<String, String> r : c.poll(POLL)) seen.add(r.value());
        }
        c.commitSync();
      }
      out.put(level, seen);
    }
    return out;
  }
}
