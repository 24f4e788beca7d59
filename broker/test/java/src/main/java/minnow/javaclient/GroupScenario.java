package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer group (classic protocol) on a two-partition topic: two members share the partitions,
 * each consumes its partition to the end and commits; both close; more records arrive; a new
 * member of the same group resumes from the committed offsets, so it sees only the new records.
 * One thread polls both members in turn with short polls, as the client allows.
 */
final class GroupScenario {
  static final int FIRST_PER_PARTITION = 10;
  static final int SECOND_PER_PARTITION = 5;

  private GroupScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("group");
    String group = clients.name("group-g");
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    }
    produce(clients, topic, 0, FIRST_PER_PARTITION);

    Map<String, Object> out = new LinkedHashMap<>();
    out.put("topic", topic);
    out.put("group", group);
    KafkaConsumer<String, String> a = clients.consumer(group, Map.of());
    KafkaConsumer<String, String> b = clients.consumer(group, Map.of());
    try {
      a.subscribe(List.of(topic));
      b.subscribe(List.of(topic));
      List<Map<String, Object>> seenA = new ArrayList<>();
      List<Map<String, Object>> seenB = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(45).toNanos();
      boolean balanced = false;
      while (!balanced && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : a.poll(Duration.ofMillis(100))) seenA.add(Records.toMap(r));
        for (ConsumerRecord<String, String> r : b.poll(Duration.ofMillis(100))) seenB.add(Records.toMap(r));
        balanced = atEndOfOnePartition(a) && atEndOfOnePartition(b);
      }
      out.put("assignmentA", names(a.assignment()));
      out.put("assignmentB", names(b.assignment()));
      out.put("consumedA", seenA);
      out.put("consumedB", seenB);
      if (!balanced) throw new IllegalStateException("the two members did not each get one partition and reach its end within 45 s: " + out);
      a.commitSync();
      b.commitSync();
      out.put("committedA", committed(a.committed(a.assignment())));
      out.put("committedB", committed(b.committed(b.assignment())));
    } finally {
      a.close(Duration.ofSeconds(5));
      b.close(Duration.ofSeconds(5));
    }

    produce(clients, topic, FIRST_PER_PARTITION, SECOND_PER_PARTITION);
    try (KafkaConsumer<String, String> c = clients.consumer(group, Map.of())) {
      Set<TopicPartition> both = Set.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
      out.put("committedBeforeResume", committed(c.committed(both)));
      c.subscribe(List.of(topic));
      out.put("resumed", Records.pollUntil(c, 2 * SECOND_PER_PARTITION, Duration.ofSeconds(20)));
      // Anything beyond the new records would mean the commits were lost.
      out.put("resumedExtra", Records.pollUntil(c, 1, Duration.ofMillis(500)));
    }
    return out;
  }

  private static boolean atEndOfOnePartition(KafkaConsumer<String, String> c) {
    Set<TopicPartition> assigned = c.assignment();
    if (assigned.size() != 1) return false;
    TopicPartition tp = assigned.iterator().next();
    return c.position(tp, Duration.ofSeconds(5)) >= FIRST_PER_PARTITION;
  }

  private static void produce(Clients clients, String topic, int from, int perPartition) throws Exception {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<String, String> producer = clients.producer(Map.of())) {
      for (int p = 0; p < 2; p++)
        for (int i = from; i < from + perPartition; i++) sent.add(producer.send(new ProducerRecord<>(topic, p, "k" + i, "p" + p + "-" + i)));
    }
    for (Future<RecordMetadata> f : sent) f.get();
  }

  private static List<String> names(Collection<TopicPartition> tps) {
    List<String> out = new ArrayList<>();
    for (TopicPartition tp : tps) out.add(tp.toString());
    out.sort(null);
    return out;
  }

  private static Map<String, Long> committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
    Map<String, Long> out = new TreeMap<>();
    offsets.forEach((tp, om) -> out.put(tp.toString(), om == null ? null : om.offset()));
    return out;
  }
}
