package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * KIP-848's online upgrade and downgrade with the Java client: a rolling restart of a live group's
 * two classic consumers into group.protocol=consumer ones (the first restarted one joins the
 * classic group, which becomes a consumer group with the other still speaking the classic
 * protocol inside it), then the way back (the last consumer-protocol member leaving turns it into
 * a classic group again). Records keep flowing at every step; each consumer commits what it read
 * after each poll and when partitions are revoked, so every record must be read exactly once.
 * Reports, per step, the group's type and members and the records read, and any read twice.
 */
final class MigrationScenario {
  static final int PARTITIONS = 4;
  static final int PER_STEP = 10; // records per partition produced at each step
  static final Duration STEP = Duration.ofSeconds(60);
  static final Map<String, Object> CLASSIC = Map.of("group.protocol", "classic");
  static final Map<String, Object> CONSUMER = Map.of("group.protocol", "consumer");

  private MigrationScenario() {}

  /** Commits refused during rebalances, by members already closed. */
  private static int failed;

  /** A consumer of the group with its name, committing what it read. */
  static final class Member implements ConsumerRebalanceListener {
    final String name;
    final KafkaConsumer<String, String> consumer;
    /** The next offset to read of each partition it read from and has not committed yet. */
    final Map<TopicPartition, OffsetAndMetadata> uncommitted = new HashMap<>();
    int failedCommits;

    Member(Clients clients, String group, String topic, String name, Map<String, Object> protocol) {
      this.name = name;
      this.consumer = clients.consumer(group, protocol);
      consumer.subscribe(List.of(topic), this);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      commit();
    }

    /**
     * Commits what it read; a commit refused during a rebalance (CommitFailedException: a stale
     * epoch or generation, as with Kafka) is tried again after the next poll. Counted.
     */
    void commit() {
      if (uncommitted.isEmpty()) return;
      try {
        consumer.commitSync(new HashMap<>(uncommitted));
        uncommitted.clear();
      } catch (CommitFailedException e) {
        failedCommits++;
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
  }

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("migration");
    String group = clients.name("migration-group");
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
    }
    Map<String, Integer> reads = new TreeMap<>();
    Map<String, Object> out = new LinkedHashMap<>();
    List<Member> live = new ArrayList<>();
    try (KafkaProducer<String, String> producer = clients.producer(Map.of());
        Admin admin = clients.admin()) {
      int[] produced = {0};
      Runnable produce = () -> {
        for (int p = 0; p < PARTITIONS; p++)
          for (int i = 0; i < PER_STEP; i++) producer.send(new ProducerRecord<>(topic, p, "k", "r" + produced[0]++));
        producer.flush();
      };
      // 1. Two classic members.
      live.add(new Member(clients, group, topic, "a-classic", CLASSIC));
      live.add(new Member(clients, group, topic, "b-classic", CLASSIC));
      out.put("classic", step(admin, group, live, reads, produce, produced));
      // 2. b restarts with the consumer protocol: it joins the live classic group (online upgrade).
      replace(live, 1, new Member(clients, group, topic, "b-consumer", CONSUMER));
      out.put("mixedUpgrade", step(admin, group, live, reads, produce, produced));
      // 3. a restarts with the consumer protocol too.
      replace(live, 0, new Member(clients, group, topic, "a-consumer", CONSUMER));
      out.put("consumer", step(admin, group, live, reads, produce, produced));
      // 4. The way back: a restarts classic, joining the consumer group as a classic member.
      replace(live, 0, new Member(clients, group, topic, "a-classic-again", CLASSIC));
      out.put("mixedDowngrade", step(admin, group, live, reads, produce, produced));
      // 5. b, the last consumer-protocol member, restarts classic: the group is classic again.
      replace(live, 1, new Member(clients, group, topic, "b-classic-again", CLASSIC));
      out.put("classicAgain", step(admin, group, live, reads, produce, produced));
      out.put("produced", produced[0]);
    } finally {
      for (Member m : live) {
        try {
          m.consumer.close(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
          System.err.println("closing " + m.name + " failed: " + e);
        }
      }
    }
    List<String> twice = new ArrayList<>();
    for (Map.Entry<String, Integer> e : reads.entrySet()) if (e.getValue() > 1) twice.add(e.getKey());
    for (Member m : live) failed += m.failedCommits;
    out.put("failedCommits", failed);
    out.put("readOnce", reads.size());
    out.put("readTwice", twice);
    return out;
  }

  /** Closes the member at `index` (it commits and leaves) and starts `next` in its place. */
  private static void replace(List<Member> live, int index, Member next) {
    live.get(index).consumer.close(Duration.ofSeconds(10));
    failed += live.get(index).failedCommits;
    live.set(index, next);
  }

  /** Polls every member in turn until `done` or the step's time is up; commits what each read. */
  private static void poll(List<Member> live, Map<String, Integer> reads, Map<String, Integer> readBy, BooleanSupplier done) {
    long deadline = System.nanoTime() + STEP.toNanos();
    do {
      for (Member m : live) {
        int n = 0;
        for (ConsumerRecord<String, String> r : m.consumer.poll(Duration.ofMillis(100))) {
          reads.merge(r.value(), 1, Integer::sum);
          m.uncommitted.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
          n++;
        }
        if (n > 0) {
          m.commit();
          readBy.merge(m.name, n, Integer::sum);
        }
      }
    } while (!done.getAsBoolean() && System.nanoTime() < deadline);
  }

  /**
   * Polls until each member owns partitions, produces the step's records and polls until all
   * records so far were read; then reports the group as described and who read what.
   */
  private static Map<String, Object> step(Admin admin, String group, List<Member> live, Map<String, Integer> reads, Runnable produce, int[] produced) throws Exception {
    Map<String, Integer> readBy = new LinkedHashMap<>();
    for (Member m : live) readBy.put(m.name, 0);
    // First until every member owns partitions (the conversion done), then the step's records.
    poll(live, reads, readBy, () -> live.stream().allMatch(m -> !m.consumer.assignment().isEmpty()));
    produce.run();
    poll(live, reads, readBy, () -> reads.size() >= produced[0]);
    Map<String, Object> out = new LinkedHashMap<>();
    ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
    out.put("type", String.valueOf(d.type()));
    out.put("members", d.members().size());
    out.put("readBy", readBy);
    int owned = 0;
    for (Member m : live) owned += m.consumer.assignment().size();
    out.put("owned", owned);
    out.put("readSoFar", reads.size());
    out.put("producedSoFar", produced[0]);
    System.err.println("step done: " + out);
    return out;
  }
}
