package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * KIP-848's consumer group protocol (group.protocol=consumer): the broker assigns. Two members
 * split a four-partition topic (the first gives up only what moves); the second leaves and its
 * partitions move to the first with nothing of the first's revoked (no stop-the-world); a
 * broker-side regex subscription (SubscriptionPattern, Java 4.x) picks up a topic created later;
 * committed offsets are where a new consumer of the group resumes. Reports what the client saw.
 */
final class ConsumerProtocolScenario {
  static final int PARTITIONS = 4;
  static final Duration STEP = Duration.ofSeconds(40);
  static final Map<String, Object> CONSUMER = Map.of("group.protocol", "consumer");

  private ConsumerProtocolScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("kip848");
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
    }
    produce(clients, topic, "first", 10);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("split", split(clients, topic));
    out.put("regex", regex(clients));
    out.put("resume", resume(clients, topic));
    return out;
  }

  /** Records the partitions the rebalance listener was told about, in order. */
  static final class Listener implements ConsumerRebalanceListener {
    final List<String> revoked = new ArrayList<>();
    final List<String> assigned = new ArrayList<>();

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      revoked.addAll(names(partitions));
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      assigned.addAll(names(partitions));
    }
  }

  private static Map<String, Object> split(Clients clients, String topic) throws Exception {
    String group = clients.name("kip848-split");
    Map<String, Object> out = new LinkedHashMap<>();
    Set<String> consumedByA = new TreeSet<>();
    Listener la = new Listener();
    try (KafkaConsumer<String, String> a = clients.consumer(group, CONSUMER)) {
      a.subscribe(List.of(topic), la);
      pollUntil(List.of(a), consumedByA, () -> a.assignment().size() == PARTITIONS, STEP);
      out.put("aloneA", names(a.assignment()));
      Listener lb = new Listener();
      KafkaConsumer<String, String> b = clients.consumer(group, CONSUMER);
      try {
        b.subscribe(List.of(topic), lb);
        pollUntil(List.of(a, b), consumedByA, () -> a.assignment().size() == PARTITIONS / 2 && b.assignment().size() == PARTITIONS / 2, STEP);
        out.put("sharedA", names(a.assignment()));
        out.put("sharedB", names(b.assignment()));
        out.put("revokedAOnJoin", new ArrayList<>(la.revoked));
        try (Admin admin = clients.admin()) {
          ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
          out.put("describedType", String.valueOf(d.type()));
          out.put("describedState", String.valueOf(d.state()));
          out.put("describedMembers", d.members().size());
          out.put("describedAssignor", d.partitionAssignor());
        }
      } finally {
        b.close(Duration.ofSeconds(10)); // leaves with member epoch -1
      }
      int revokedBefore = la.revoked.size();
      int assignedBefore = la.assigned.size();
      produce(clients, topic, "after-leave", 1);
      pollUntil(List.of(a), consumedByA, () -> a.assignment().size() == PARTITIONS && consumedByA.size() == PARTITIONS * 11, STEP);
      out.put("afterLeaveA", names(a.assignment()));
      out.put("revokedAOnLeave", new ArrayList<>(la.revoked.subList(revokedBefore, la.revoked.size())));
      out.put("assignedAOnLeave", new ArrayList<>(la.assigned.subList(assignedBefore, la.assigned.size())));
    }
    out.put("consumedByA", consumedByA.size());
    return out;
  }

  /** SubscriptionPattern exists from kafka-clients 4.0: called by reflection so the 3.x build compiles. */
  private static Map<String, Object> regex(Clients clients) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    Class<?> patternClass;
    try {
      patternClass = Class.forName("org.apache.kafka.clients.consumer.SubscriptionPattern");
    } catch (ClassNotFoundException e) {
      out.put("outcome", "no SubscriptionPattern in this client");
      return out;
    }
    String first = clients.name("re-orders-1");
    String later = clients.name("re-orders-2");
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(first, 1, (short) 1))).all().get();
    }
    produce(clients, first, "r", 1);
    Set<String> seen = new TreeSet<>();
    try (KafkaConsumer<String, String> c = clients.consumer(clients.name("kip848-regex"), CONSUMER)) {
      Object pattern = patternClass.getConstructor(String.class).newInstance(clients.name("re-orders-.*"));
      KafkaConsumer.class.getMethod("subscribe", patternClass).invoke(c, pattern);
      pollUntil(List.of(c), seen, () -> seen.size() == 1, STEP);
      out.put("before", new TreeSet<>(topicsOf(seen)));
      try (Admin admin = clients.admin()) {
        admin.createTopics(List.of(new NewTopic(later, 2, (short) 1))).all().get();
      }
      produce(clients, later, "r", 1);
      pollUntil(List.of(c), seen, () -> seen.size() == 3, STEP);
      out.put("after", new TreeSet<>(topicsOf(seen)));
      out.put("assignment", names(c.assignment()));
    }
    return out;
  }

  private static Map<String, Object> resume(Clients clients, String topic) throws Exception {
    String group = clients.name("kip848-resume");
    Map<String, Object> out = new LinkedHashMap<>();
    Set<String> first = new TreeSet<>();
    try (KafkaConsumer<String, String> c = clients.consumer(group, CONSUMER)) {
      c.subscribe(List.of(topic));
      pollUntil(List.of(c), first, () -> first.size() == PARTITIONS * 11, STEP);
      c.commitSync();
      Map<TopicPartition, OffsetAndMetadata> committed = c.committed(Set.copyOf(c.assignment()));
      long sum = 0;
      for (OffsetAndMetadata o : committed.values()) sum += o == null ? -1 : o.offset();
      out.put("committedSum", sum);
    }
    out.put("firstRead", first.size());
    produce(clients, topic, "after-restart", 1);
    Set<String> second = new TreeSet<>();
    try (KafkaConsumer<String, String> c = clients.consumer(group, CONSUMER)) {
      c.subscribe(List.of(topic));
      pollUntil(List.of(c), second, () -> second.size() >= PARTITIONS, STEP);
      // A little longer: anything re-read from before the commit would show up now.
      pollUntil(List.of(c), second, () -> false, Duration.ofMillis(1500));
    }
    List<String> values = new ArrayList<>();
    for (String s : second) values.add(s.substring(s.indexOf('=') + 1));
    out.put("secondRead", values);
    return out;
  }

  private static void produce(Clients clients, String topic, String prefix, int perPartition) throws Exception {
    int partitions;
    try (Admin admin = clients.admin()) {
      partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
    }
    try (KafkaProducer<String, String> p = clients.producer(Map.of())) {
      for (int part = 0; part < partitions; part++)
        for (int i = 0; i < perPartition; i++) p.send(new ProducerRecord<>(topic, part, "k", prefix + "-" + part + "-" + i));
      p.flush();
    }
  }

  /** Polls every consumer until `done` or the timeout; records "topic-partition@offset=value". */
  private static void pollUntil(List<KafkaConsumer<String, String>> consumers, Set<String> consumed, BooleanSupplier done, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    do {
      for (KafkaConsumer<String, String> c : consumers) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
          if (consumers.indexOf(c) == 0) consumed.add(r.topic() + "-" + r.partition() + "@" + r.offset() + "=" + r.value());
        }
      }
    } while (!done.getAsBoolean() && System.nanoTime() < deadline);
  }

  private static List<String> topicsOf(Set<String> consumed) {
    List<String> out = new ArrayList<>();
    for (String s : consumed) {
      String tp = s.substring(0, s.indexOf('@'));
      String t = tp.substring(0, tp.lastIndexOf('-'));
      if (!out.contains(t)) out.add(t);
    }
    return out;
  }

  private static List<String> names(Collection<TopicPartition> tps) {
    List<String> out = new ArrayList<>();
    for (TopicPartition tp : tps) out.add(tp.toString());
    out.sort(null);
    return out;
  }
}
