package minnow.javaclient;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * The share-group admin APIs (KIP-932, keys 90-92 and DeleteGroups) through the Java Admin client
 * 4.x: listShareGroupOffsets after a member accepted every record, alterShareGroupOffsets on the
 * empty group and a new member reading from the new start offset, alterShareGroupOffsets refused while
 * a member is in the group and for an unknown group, deleteShareGroupOffsets, deleteShareGroups.
 * The share admin methods are called by reflection: the 3.x build of this file has none of them.
 */
final class ShareAdminScenario {
  private ShareAdminScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = ShareScenario.topicWith(clients, "share-admin", "r0", "r1", "r2", "r3", "r4", "r5");
    String group = clients.name("share-admin-group");
    TopicPartition tp = new TopicPartition(topic, 0);
    ShareScenario.earliest(clients, group);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("firstRead", read(clients, group, topic, 6));
    try (Admin admin = clients.admin()) {
      out.put("afterRead", startOffsets(admin, group, tp));
      call(admin, "alterShareGroupOffsets", new Class<?>[] {String.class, Map.class}, group, Map.of(tp, 2L));
      out.put("afterAlter", startOffsets(admin, group, tp));
    }
    out.put("readAfterAlter", read(clients, group, topic, 4));
    try (Admin admin = clients.admin();
        KafkaShareConsumer<String, String> member = clients.shareConsumer(group, Map.of())) {
      member.subscribe(List.of(topic));
      member.poll(ShareScenario.POLL);
      out.put("alterWithMember", error(() -> call(admin, "alterShareGroupOffsets",
          new Class<?>[] {String.class, Map.class}, group, Map.of(tp, 0L))));
      out.put("deleteOffsetsWithMember", error(() -> call(admin, "deleteShareGroupOffsets",
          new Class<?>[] {String.class, Set.class}, group, Set.of(topic))));
    }
    try (Admin admin = clients.admin()) {
      out.put("alterUnknownGroup", error(() -> call(admin, "alterShareGroupOffsets",
          new Class<?>[] {String.class, Map.class}, clients.name("no-such-group"), Map.of(tp, 0L))));
      call(admin, "deleteShareGroupOffsets", new Class<?>[] {String.class, Set.class}, group, Set.of(topic));
      out.put("afterDeleteOffsets", startOffsets(admin, group, tp));
      call(admin, "deleteShareGroups", new Class<?>[] {Collection.class}, List.of(group));
      out.put("describeAfterDelete", error(() -> call(admin, "describeShareGroups",
          new Class<?>[] {Collection.class}, List.of(group))));
    }
    return out;
  }

  /** One member reads `count` records (accepting each: implicit acknowledgement), commits and leaves. */
  private static List<String> read(Clients clients, String group, String topic, int count) throws Exception {
    List<String> seen = new ArrayList<>();
    try (KafkaShareConsumer<String, String> c = clients.shareConsumer(group, Map.of())) {
      c.subscribe(List.of(topic));
      long end = System.currentTimeMillis() + ShareScenario.STEP_MS;
      while (seen.size() < count && System.currentTimeMillis() < end) {
        for (ConsumerRecord<String, String> r : c.poll(ShareScenario.POLL)) seen.add(r.value());
      }
      c.commitSync();
    }
    return seen;
  }

  /** listShareGroupOffsets for one partition: its start offset, or null when the group has none. */
  private static Object startOffsets(Admin admin, String group, TopicPartition tp) throws Exception {
    Class<?> specClass = Class.forName("org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec");
    Object spec = specClass.getConstructor().newInstance();
    specClass.getMethod("topicPartitions", Collection.class).invoke(spec, List.of(tp));
    Object result = Admin.class.getMethod("listShareGroupOffsets", Map.class).invoke(admin, Map.of(group, spec));
    Map<?, ?> byPartition = (Map<?, ?>) ((KafkaFuture<?>) result.getClass()
        .getMethod("partitionsToOffsetInfo", String.class).invoke(result, group)).get();
    Object info = byPartition.get(tp);
    return info == null ? null : info.getClass().getMethod("startOffset").invoke(info);
  }

  /** Calls an Admin method and waits for its result's all(). */
  private static void call(Admin admin, String method, Class<?>[] types, Object... args) throws Exception {
    Object result;
    try {
      result = Admin.class.getMethod(method, types).invoke(admin, args);
    } catch (InvocationTargetException e) {
      throw (Exception) e.getCause();
    }
    ((KafkaFuture<?>) result.getClass().getMethod("all").invoke(result)).get();
  }

  interface Step {
    void run() throws Exception;
  }

  /** The exception class a step ended with ("none" when it succeeded). */
  private static String error(Step step) {
    try {
      step.run();
      return "none";
    } catch (ExecutionException e) {
      return e.getCause().getClass().getSimpleName();
    } catch (Exception e) {
      return e.getClass().getSimpleName();
    }
  }
}
