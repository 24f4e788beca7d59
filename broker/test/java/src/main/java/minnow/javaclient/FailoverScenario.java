package minnow.javaclient;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * One member of the group PREFIX-failover-g consumes PREFIX-failover (created by the caller) and
 * commits after every poll that returned records, until it has seen minnow.failoverRecords
 * distinct values (default 60) and committed after the last one. Meanwhile the caller
 * (broker/test/cluster/coordinator-failover-java.test.ts) kills the group's coordinator: the client
 * marks a coordinator it cannot reach unknown and looks it up again
 * (AbstractCoordinator.checkAndGetCoordinator), so it rejoins in place, without a restart.
 * Reports each value's read count, how often partitions were assigned, and the commit errors seen.
 */
final class FailoverScenario {
  private FailoverScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("failover");
    String group = clients.name("failover-g");
    int target = Integer.getInteger("minnow.failoverRecords", 60);
    Map<String, Integer> reads = new TreeMap<>();
    Set<String> commitErrors = new TreeSet<>();
    int[] assignments = {0};
    boolean done = false;
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    try (KafkaConsumer<String, String> consumer = clients.consumer(group, Map.of())) {
      consumer.subscribe(
          List.of(topic),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
              assignments[0]++;
            }
          });
      while (!done && System.nanoTime() < deadline) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
        for (ConsumerRecord<String, String> r : records) reads.merge(r.value(), 1, Integer::sum);
        if (records.isEmpty() && reads.size() < target) continue;
        try {
          consumer.commitSync(Duration.ofSeconds(5));
          done = reads.size() >= target;
        } catch (KafkaException e) {
          // No coordinator yet (a timeout), or the rejoin made the generation stale: the records
          // are committed after the rejoin (read again from the last commit if need be).
          commitErrors.add(e.getClass().getSimpleName());
        }
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("ok", done);
    out.put("distinct", reads.size());
    out.put("reads", reads);
    out.put("assignments", assignments[0]);
    out.put("commitErrors", commitErrors);
    return out;
  }
}
