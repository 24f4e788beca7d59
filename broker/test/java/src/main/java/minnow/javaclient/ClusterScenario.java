package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Several brokers on one database (BOOTSTRAP is their comma-separated list, each client is given
 * one of them only): the idempotent producer (acks=all) bootstraps from the first broker; a
 * one-member group consumes everything through the second; then a two-member group whose members
 * bootstrap from the second and the third shares the partitions, each member reaching the end of
 * its own, and commits.
 */
final class ClusterScenario {
  static final int PARTITIONS = 3;
  static final int PER_PARTITION = 10;

  private ClusterScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String[] brokers = clients.bootstrap.split(",");
    if (brokers.length < 3) throw new IllegalArgumentException("the cluster scenario needs three brokers: " + clients.bootstrap);
    String topic = clients.name("cluster");
    Map<String, Object> out = new LinkedHashMap<>();
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
    }

    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        clients.producer(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers[0]))) {
      for (int p = 0; p < PARTITIONS; p++)
        for (int i = 0; i < PER_PARTITION; i++) sent.add(producer.send(new ProducerRecord<>(topic, p, "k" + i, "p" + p + "-" + i)));
    }
    List<String> acked = new ArrayList<>();
    for (Future<RecordMetadata> f : sent) acked.add(f.get().partition() + "/" + f.get().offset());
    out.put("acked", acked);

    String one = clients.name("cluster-one");
    try (KafkaConsumer<String, String> c = clients.consumer(one, Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers[1]))) {
      c.subscribe(List.of(topic));
      out.put("groupOne", values(Records.pollUntil(c, PARTITIONS * PER_PARTITION, Duration.ofSeconds(30))));
      c.commitSync();
    }

    String two = clients.name("cluster-two");
    KafkaConsumer<String, String> a = clients.consumer(two, Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers[1]));
    KafkaConsumer<String, String> b = clients.consumer(two, Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers[2]));
    try {
      a.subscribe(List.of(topic));
      b.subscribe(List.of(topic));
      TreeSet<String> seenA = new TreeSet<>();
      TreeSet<String> seenB = new TreeSet<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(45).toNanos();
      boolean done = false;
      while (!done && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : a.poll(Duration.ofMillis(100))) seenA.add(r.value());
        for (ConsumerRecord<String, String> r : b.poll(Duration.ofMillis(100))) seenB.add(r.value());
        done = shared(a, b) && atEnd(a) && atEnd(b);
      }
      out.put("assignmentA", names(a.assignment()));
      out.put("assignmentB", names(b.assignment()));
      out.put("groupTwoA", new ArrayList<>(seenA));
      out.put("groupTwoB", new ArrayList<>(seenB));
      if (!done) throw new IllegalStateException("the two members did not share the partitions and reach their ends within 45 s: " + out);
      a.commitSync();
      b.commitSync();
    } finally {
      a.close(Duration.ofSeconds(5));
      b.close(Duration.ofSeconds(5));
    }
    return out;
  }

  /** Both members hold partitions, none twice, all of them together. */
  private static boolean shared(KafkaConsumer<String, String> a, KafkaConsumer<String, String> b) {
    TreeSet<TopicPartition> all = new TreeSet<>((x, y) -> Integer.compare(x.partition(), y.partition()));
    all.addAll(a.assignment());
    all.addAll(b.assignment());
    return !a.assignment().isEmpty() && !b.assignment().isEmpty()
        && a.assignment().size() + b.assignment().size() == PARTITIONS && all.size() == PARTITIONS;
  }

  private static boolean atEnd(KafkaConsumer<String, String> c) {
    for (TopicPartition tp : c.assignment()) if (c.position(tp, Duration.ofSeconds(5)) < PER_PARTITION) return false;
    return true;
  }

  private static List<String> values(List<Map<String, Object>> records) {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> r : records) out.add(String.valueOf(r.get("value")));
    out.sort(null);
    return out;
  }

  private static List<String> names(Collection<TopicPartition> tps) {
    List<String> out = new ArrayList<>();
    for (TopicPartition tp : tps) out.add(tp.toString());
    out.sort(null);
    return out;
  }
}
