package minnow.javaclient;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The members of the kill -9 suite's groups (broker/tools/resilience/group-crash-run.ts): N
 * consumers of one group in threads of this JVM, consuming one topic while the broker is killed
 * and restarted under them, each telling on stdout (one JSON line per event) what it consumed,
 * committed or acknowledged, and what it was assigned. The test decides from these lines whether
 * a promise was broken; this class only reports. Runs until stdin closes or reads "stop"; "settle"
 * ends the consumer members' churn.
 *
 * <p>Usage: CrashMembers BOOTSTRAP consumer|share TOPIC GROUP MEMBERS
 *
 * <ul>
 *   <li>consumer: KafkaConsumer with group.protocol=consumer (KIP-848), no auto-commit; after each
 *       poll that returned records it commits their next offsets with commitSync. Each member is
 *       replaced by a new consumer every few seconds (-Dminnow.churnMs, 15000), so partitions move. Lines: recs
 *       [[partition, offset]...], commit {partition: offset} (only once commitSync returned),
 *       commitFailed, assigned / revoked / lost [partitions], error.
 *   <li>share: KafkaShareConsumer (KIP-932) in explicit mode: each record accepted, then
 *       commitSync. Lines: recs [[partition, offset, deliveryCount]...], acked [[partition, offset]...]
 *       (the partitions commitSync answered without an error), ackFailed, error.
 * </ul>
 */
public final class CrashMembers {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration POLL = Duration.ofMillis(200);
  private static final AtomicBoolean stopping = new AtomicBoolean();
  /** After "settle" on stdin: no more churn, the group may settle. */
  private static final AtomicBoolean settling = new AtomicBoolean();
  /** consumer mode: a member is replaced by a new consumer after 0.5-1.5 times this (ms); 0 never. */
  private static final int CHURN_MS = Integer.getInteger("minnow.churnMs", 15_000);

  private CrashMembers() {}

  static synchronized void emit(int member, String event, Object data) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("m", member);
    line.put("ev", event);
    line.put("t", System.currentTimeMillis());
    if (data != null) line.put("data", data);
    try {
      System.out.println(JSON.writeValueAsString(line));
      System.out.flush();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: CrashMembers BOOTSTRAP consumer|share TOPIC GROUP MEMBERS");
      System.exit(2);
    }
    Clients clients = new Clients(args[0], "crash");
    String mode = args[1];
    String topic = args[2];
    String group = args[3];
    int members = Integer.parseInt(args[4]);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      final int m = i;
      Runnable body = mode.equals("share") ? () -> share(clients, m, topic, group) : () -> consumer(clients, m, topic, group);
      Thread t = new Thread(body, "member-" + m);
      t.start();
      threads.add(t);
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null && !line.trim().equals("stop")) {
      if (line.trim().equals("settle")) settling.set(true);
    }
    stopping.set(true);
    for (Thread t : threads) t.join(30_000);
    emit(-1, "closed", null);
    System.exit(0);
  }

  private static List<Integer> partitions(Collection<TopicPartition> tps) {
    List<Integer> out = new ArrayList<>();
    for (TopicPartition tp : tps) out.add(tp.partition());
    out.sort(null);
    return out;
  }

  /**
   * One consumer member; every CHURN_MS or so it closes and a new consumer takes its place (a new
   * member id), so the group keeps rebalancing and kills land while partitions move.
   */
  private static void consumer(Clients clients, int m, String topic, String group) {
    java.util.Random random = new java.util.Random(m);
    while (!stopping.get()) {
      long until = CHURN_MS <= 0 ? Long.MAX_VALUE : System.currentTimeMillis() + CHURN_MS / 2 + random.nextInt(CHURN_MS);
      consumerUntil(clients, m, topic, group, until);
      emit(m, "left", null);
    }
  }

  private static void consumerUntil(Clients clients, int m, String topic, String group, long until) {
    Map<String, Object> overrides = Map.of("group.protocol", "consumer", "max.poll.records", 50);
    try (KafkaConsumer<String, String> c = clients.consumer(group, overrides)) {
      c.subscribe(
          List.of(topic),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> tps) {
              emit(m, "revoked", partitions(tps));
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> tps) {
              emit(m, "assigned", partitions(tps));
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> tps) {
              emit(m, "lost", partitions(tps));
            }
          });
      while (!stopping.get() && (settling.get() || System.currentTimeMillis() < until)) {
        ConsumerRecords<String, String> records;
        try {
          records = c.poll(POLL);
        } catch (Exception e) {
          emit(m, "error", Errors.describe(e));
          continue;
        }
        if (records.isEmpty()) continue;
        List<List<Long>> seen = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> next = new LinkedHashMap<>();
        for (ConsumerRecord<String, String> r : records) {
          seen.add(List.of((long) r.partition(), r.offset()));
          next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        emit(m, "recs", seen);
        try {
          c.commitSync(next);
          Map<Integer, Long> committed = new TreeMap<>();
          next.forEach((tp, o) -> committed.put(tp.partition(), o.offset()));
          emit(m, "commit", committed);
        } catch (Exception e) {
          emit(m, "commitFailed", Errors.describe(e));
        }
      }
    } catch (Exception e) {
      emit(m, "error", Errors.describe(e));
    }
  }

  /** ConsumerRecord.deliveryCount() exists from kafka-clients 4.0: by reflection so the 3.x build compiles. */
  private static long deliveryCount(ConsumerRecord<String, String> r) {
    try {
      Object o = ((Optional<?>) ConsumerRecord.class.getMethod("deliveryCount").invoke(r)).orElse(null);
      return o == null ? -1 : ((Number) o).longValue();
    } catch (ReflectiveOperationException e) {
      return -1;
    }
  }

  private static void share(Clients clients, int m, String topic, String group) {
    Map<String, Object> overrides = Map.of("share.acknowledgement.mode", "explicit", "max.poll.records", 50);
    try (KafkaShareConsumer<String, String> c = clients.shareConsumer(group, overrides)) {
      c.subscribe(List.of(topic));
      while (!stopping.get()) {
        ConsumerRecords<String, String> records;
        try {
          records = c.poll(POLL);
        } catch (Exception e) {
          emit(m, "error", Errors.describe(e));
          continue;
        }
        if (records.isEmpty()) continue;
        List<List<Long>> seen = new ArrayList<>();
        Map<Integer, List<List<Long>>> byPartition = new TreeMap<>();
        for (ConsumerRecord<String, String> r : records) {
          seen.add(List.of((long) r.partition(), r.offset(), deliveryCount(r)));
          byPartition.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(List.of((long) r.partition(), r.offset()));
          c.acknowledge(r, AcknowledgeType.ACCEPT);
        }
        emit(m, "recs", seen);
        try {
          Map<?, ?> results = c.commitSync();
          List<List<Long>> acked = new ArrayList<>();
          List<Object> failed = new ArrayList<>();
          for (Map.Entry<?, ?> e : results.entrySet()) {
            int partition = ((org.apache.kafka.common.TopicIdPartition) e.getKey()).partition();
            Optional<?> error = (Optional<?>) e.getValue();
            List<List<Long>> recs = byPartition.getOrDefault(partition, List.of());
            if (error.isEmpty()) acked.addAll(recs);
            else failed.add(Map.of("partition", partition, "recs", recs, "error", Errors.describe((Exception) error.get())));
          }
          if (!acked.isEmpty()) emit(m, "acked", acked);
          if (!failed.isEmpty()) emit(m, "ackFailed", failed);
        } catch (Exception e) {
          emit(m, "ackFailed", List.of(Map.of("recs", seen, "error", Errors.describe(e))));
        }
      }
    } catch (Exception e) {
      emit(m, "error", Errors.describe(e));
    }
  }
}
