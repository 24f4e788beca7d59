package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Classic-protocol features beyond the default eager assignor, on a four-partition topic:
 * cooperative-sticky (KIP-429: a second member triggers a second rebalance round in which the
 * first gives up half its partitions without losing the rest) and static membership (KIP-345:
 * group.instance.id; a member that closes and comes back with the same id gets its partitions
 * back without a new assignment for the others).
 */
final class RebalanceScenario {
  static final int PARTITIONS = 4;

  private RebalanceScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("rebalance");
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("cooperative", cooperative(clients, topic));
    out.put("static", staticMembers(clients, topic));
    return out;
  }

  private static Map<String, Object> cooperative(Clients clients, String topic) {
    Map<String, Object> cfg = Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
    String group = clients.name("coop-g");
    Map<String, Object> out = new LinkedHashMap<>();
    try (KafkaConsumer<String, String> a = clients.consumer(group, cfg); KafkaConsumer<String, String> b = clients.consumer(group, cfg)) {
      // Eager rebalancing revokes everything; cooperative only what moves to the new member.
      List<String> revokedA = new ArrayList<>();
      a.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {
          revokedA.addAll(names(partitions));
        }

        @Override
        public void onPartitionsAssigned(java.util.Collection<TopicPartition> partitions) {}
      });
      pollUntil(List.of(a), () -> a.assignment().size() == PARTITIONS, Duration.ofSeconds(20));
      out.put("aloneA", names(a.assignment()));
      b.subscribe(List.of(topic));
      pollUntil(List.of(a, b), () -> a.assignment().size() == PARTITIONS / 2 && b.assignment().size() == PARTITIONS / 2, Duration.ofSeconds(30));
      out.put("sharedA", names(a.assignment()));
      out.put("sharedB", names(b.assignment()));
      out.put("revokedA", new ArrayList<>(revokedA)); // before close revokes the rest
    }
    return out;
  }

  private static Map<String, Object> staticMembers(Clients clients, String topic) throws Exception {
    String group = clients.name("static-g");
    Map<String, Object> out = new LinkedHashMap<>();
    Map<String, Object> one = Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-1");
    Map<String, Object> two = Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-2");
    KafkaConsumer<String, String> b = clients.consumer(group, two);
    try {
      List<String> before;
      try (KafkaConsumer<String, String> a = clients.consumer(group, one)) {
        a.subscribe(List.of(topic));
        b.subscribe(List.of(topic));
        pollUntil(List.of(a, b), () -> a.assignment().size() == PARTITIONS / 2 && b.assignment().size() == PARTITIONS / 2, Duration.ofSeconds(30));
        before = names(a.assignment());
        out.put("firstA", before);
        out.put("firstB", names(b.assignment()));
      }
      // A static member's close sends no LeaveGroup: the group waits for instance-1 until the
      // session timeout, so b keeps its half (a dynamic member's leave would hand b everything).
      pollUntil(List.of(b), () -> false, Duration.ofMillis(2500));
      out.put("bWhileAway", names(b.assignment()));
      try (KafkaConsumer<String, String> a2 = clients.consumer(group, one); Admin admin = clients.admin()) {
        a2.subscribe(List.of(topic));
        pollUntil(List.of(a2, b), () -> a2.assignment().size() == PARTITIONS / 2, Duration.ofSeconds(20));
        out.put("rejoinedA", names(a2.assignment()));
        out.put("stillB", names(b.assignment()));
        List<String> instances = new ArrayList<>();
        for (MemberDescription m : admin.describeConsumerGroups(List.of(group)).all().get().get(group).members())
          instances.add(m.groupInstanceId().orElse(null));
        instances.sort(null);
        out.put("describedInstances", instances);
      }
    } finally {
      b.close(Duration.ofSeconds(5));
    }
    return out;
  }

  private static void pollUntil(List<KafkaConsumer<String, String>> consumers, java.util.function.BooleanSupplier done, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    do {
      for (KafkaConsumer<String, String> c : consumers) {
        for (ConsumerRecord<String, String> ignored : c.poll(Duration.ofMillis(100))) {
          // only the assignment matters here
        }
      }
    } while (!done.getAsBoolean() && System.nanoTime() < deadline);
  }

  private static List<String> names(java.util.Collection<TopicPartition> tps) {
    List<String> out = new ArrayList<>();
    for (TopicPartition tp : tps) out.add(tp.toString());
    out.sort(null);
    return out;
  }
}
