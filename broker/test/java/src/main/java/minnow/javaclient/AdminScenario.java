package minnow.javaclient;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;

/**
 * The AdminClient calls a user makes, in order, on topic PREFIX-admin and group PREFIX-admin-g.
 * Each step's result (or the client's exception, as "error") goes into the scenario's JSON under
 * the step's name, so one broker bug does not hide the steps after it. Steps that expect an error
 * record its exception class under "error" too; the test asserts which ones must.
 */
final class AdminScenario {
  static final String RETENTION = "retention.ms";

  private AdminScenario() {}

  private static final class Steps {
    final Map<String, Object> results = new LinkedHashMap<>();

    void step(String name, Callable<Object> body) {
      try {
        results.put(name, body.call());
      } catch (Exception e) {
        Map<String, Object> err = new LinkedHashMap<>();
        err.put("error", Errors.kind(e));
        err.put("message", Errors.describe(e));
        results.put(name, err);
      }
    }
  }

  static Map<String, Object> run(Clients clients) throws Exception {
    String topic = clients.name("admin");
    String group = clients.name("admin-g");
    ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    TopicPartition tp0 = new TopicPartition(topic, 0);
    Steps s = new Steps();
    try (Admin admin = clients.admin()) {
      s.step("createTopics", () -> {
        NewTopic t = new NewTopic(topic, 1, (short) 1).configs(Map.of(RETENTION, "3600000"));
        admin.createTopics(List.of(t)).all().get();
        return "created";
      });
      s.step("createTopicsExisting", () -> {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        return "created";
      });
      s.step("listTopics", () -> new ArrayList<>(admin.listTopics().names().get()));
      s.step("describeTopics", () -> describeTopic(admin, topic));
      s.step("describeTopicsById", () -> {
        org.apache.kafka.common.Uuid id = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
        TopicDescription d = admin.describeTopics(org.apache.kafka.common.TopicCollection.ofTopicIds(List.of(id))).allTopicIds().get().get(id);
        return Map.of("name", d.name(), "partitions", d.partitions().size());
      });
      s.step("createPartitions", () -> {
        admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all().get();
        return describeTopic(admin, topic);
      });
      s.step("createPartitionsFewer", () -> {
        admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all().get();
        return "increased";
      });
      s.step("clientQuotas", () -> oneDriverAtATime(clients.bootstrap, () -> clientQuotas(admin, topic)));
      s.step("describeConfigs", () -> retention(admin, res));
      s.step("alterConfigs", () -> legacyAlterRetention(admin, res, "7200000") ? retention(admin, res) : "not in this client");
      s.step("incrementalAlterConfigsSet", () -> {
        AlterConfigOp set = new AlterConfigOp(new ConfigEntry(RETENTION, "10800000"), AlterConfigOp.OpType.SET);
        admin.incrementalAlterConfigs(Map.of(res, List.of(set))).all().get();
        return retention(admin, res);
      });
      s.step("incrementalAlterConfigsDelete", () -> {
        AlterConfigOp del = new AlterConfigOp(new ConfigEntry(RETENTION, ""), AlterConfigOp.OpType.DELETE);
        admin.incrementalAlterConfigs(Map.of(res, List.of(del))).all().get();
        return retention(admin, res);
      });
      s.step("deleteRecords", () -> {
        try (KafkaProducer<String, String> p = clients.producer(Map.of())) {
          for (int i = 0; i < 10; i++) p.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get();
        }
        long low = admin.deleteRecords(Map.of(tp0, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(tp0).get().lowWatermark();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("lowWatermark", low);
        r.put("earliest", offset(admin, tp0, OffsetSpec.earliest()));
        r.put("latest", offset(admin, tp0, OffsetSpec.latest()));
        // The records were sent one by one, so the newest timestamp is the last record's.
        r.put("maxTimestamp", offset(admin, tp0, OffsetSpec.maxTimestamp()));
        // A consumer positioned below the low watermark gets OFFSET_OUT_OF_RANGE and resets.
        try (KafkaConsumer<String, String> c = clients.consumer(null, Map.of())) {
          c.assign(List.of(tp0));
          c.seek(tp0, 0);
          List<Map<String, Object>> got = Records.pollUntil(c, 6, Duration.ofSeconds(10));
          r.put("consumedFromZero", got.stream().map(m -> m.get("offset")).toList());
        }
        return r;
      });
      s.step("describeConsumerGroupsActive", () -> {
        try (KafkaConsumer<String, String> c = clients.consumer(group, Map.of())) {
          c.subscribe(List.of(topic));
          long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
          while (c.assignment().isEmpty() && System.nanoTime() < deadline) c.poll(Duration.ofMillis(200));
          Map<String, Object> r = describeGroup(admin, group);
          c.commitSync(Map.of(tp0, new OffsetAndMetadata(7, "from the admin scenario")));
          return r;
        }
      });
      s.step("describeConsumerGroupsEmpty", () -> describeGroup(admin, group));
      s.step("alterConsumerGroupOffsets", () -> {
        TopicPartition tp1 = new TopicPartition(topic, 1);
        admin.alterConsumerGroupOffsets(group, Map.of(tp1, new OffsetAndMetadata(0, "altered"))).all().get();
        return groupOffsets(admin, group);
      });
      s.step("deleteConsumerGroupOffsets", () -> {
        admin.deleteConsumerGroupOffsets(group, java.util.Set.of(new TopicPartition(topic, 1))).all().get();
        return groupOffsets(admin, group);
      });
      s.step("listConsumerGroups", () -> {
        Map<String, Object> r = new TreeMap<>();
        for (ConsumerGroupListing l : admin.listConsumerGroups().all().get()) r.put(l.groupId(), stateOf(l));
        return r;
      });
      s.step("listConsumerGroupOffsets", () -> groupOffsets(admin, group));
      s.step("deleteConsumerGroups", () -> {
        admin.deleteConsumerGroups(List.of(group)).all().get();
        List<String> left = new ArrayList<>();
        for (ConsumerGroupListing l : admin.listConsumerGroups().all().get()) left.add(l.groupId());
        return Map.of("groupsAfter", left);
      });
      s.step("deleteConsumerGroupsMissing", () -> {
        admin.deleteConsumerGroups(List.of(group)).all().get();
        return "deleted";
      });
      s.step("describeBrokerConfigs", () -> {
        String id = Integer.toString(admin.describeCluster().controller().get().id());
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, id);
        Config config = admin.describeConfigs(List.of(broker)).all().get().get(broker);
        Map<String, Object> r = new TreeMap<>();
        for (String name : List.of("log.retention.ms", "log.retention.hours", "message.max.bytes", "num.partitions", "auto.create.topics.enable")) {
          ConfigEntry e = config.get(name);
          r.put(name, e == null ? null : e.value());
        }
        return r;
      });
      s.step("describeCluster", () -> {
        DescribeClusterResult c = admin.describeCluster();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("clusterId", c.clusterId().get());
        r.put("controller", node(c.controller().get()));
        List<Object> nodes = new ArrayList<>();
        for (Node n : c.nodes().get()) nodes.add(node(n));
        r.put("nodes", nodes);
        return r;
      });
      s.step("deleteTopics", () -> {
        admin.deleteTopics(List.of(topic)).all().get();
        return Map.of("topicsAfter", new ArrayList<>(admin.listTopics().names().get()));
      });
      s.step("deleteTopicsMissing", () -> {
        admin.deleteTopics(List.of(topic)).all().get();
        return "deleted";
      });
    }
    return Map.of("steps", s.results);
  }

  private static Map<String, Object> describeTopic(Admin admin, String topic) throws Exception {
    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("name", d.name());
    r.put("internal", d.isInternal());
    r.put("topicId", d.topicId().toString());
    List<Object> parts = new ArrayList<>();
    for (TopicPartitionInfo p : d.partitions()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("partition", p.partition());
      m.put("leader", p.leader() == null ? null : p.leader().id());
      m.put("replicas", p.replicas().stream().map(Node::id).toList());
      m.put("isr", p.isr().stream().map(Node::id).toList());
      parts.add(m);
    }
    r.put("partitions", parts);
    return r;
  }

  private static Map<String, Object> groupOffsets(Admin admin, String group) throws Exception {
    Map<String, Object> r = new TreeMap<>();
    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
        .forEach((tp, om) -> r.put(tp.toString(), Map.of("offset", om.offset(), "metadata", om.metadata())));
    return r;
  }

  private static Map<String, Object> retention(Admin admin, ConfigResource res) throws Exception {
    Config config = admin.describeConfigs(List.of(res)).all().get().get(res);
    ConfigEntry e = config.get(RETENTION);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("value", e == null ? null : e.value());
    r.put("source", e == null ? null : e.source().toString());
    r.put("entries", config.entries().size());
    return r;
  }

  /**
   * The deprecated whole-config AlterConfigs (key 33), which kafka-clients 4.0 removed from Admin:
   * called by reflection so one source builds against both lines. False when the client lacks it.
   */
  private static boolean legacyAlterRetention(Admin admin, ConfigResource res, String value) throws Exception {
    Method m;
    try {
      m = Admin.class.getMethod("alterConfigs", Map.class);
    } catch (NoSuchMethodException e) {
      return false;
    }
    Config config = new Config(List.of(new ConfigEntry(RETENTION, value)));
    try {
      Object result = m.invoke(admin, Map.of(res, config));
      ((org.apache.kafka.common.KafkaFuture<?>) result.getClass().getMethod("all").invoke(result)).get();
    } catch (InvocationTargetException e) {
      throw (Exception) e.getCause();
    }
    return true;
  }

  private static long offset(Admin admin, TopicPartition tp, OffsetSpec spec) throws Exception {
    ListOffsetsResult r = admin.listOffsets(Map.of(tp, spec));
    return r.partitionResult(tp).get().offset();
  }

  private static Map<String, Object> describeGroup(Admin admin, String group) throws Exception {
    ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("groupId", d.groupId());
    r.put("state", stateOf(d));
    r.put("simple", d.isSimpleConsumerGroup());
    r.put("assignor", d.partitionAssignor());
    r.put("coordinator", d.coordinator() == null ? null : d.coordinator().id());
    List<Object> members = new ArrayList<>();
    for (MemberDescription m : d.members()) {
      Map<String, Object> mm = new LinkedHashMap<>();
      mm.put("clientId", m.clientId());
      mm.put("host", m.host());
      mm.put("hasMemberId", !m.consumerId().isEmpty());
      List<String> tps = new ArrayList<>();
      for (TopicPartition tp : m.assignment().topicPartitions()) tps.add(tp.toString());
      tps.sort(null);
      mm.put("assignment", tps);
      members.add(mm);
    }
    r.put("members", members);
    return r;
  }

  /** The group's state: groupState() since 4.0 (KIP-1043), state() before. */
  private static String stateOf(Object descriptionOrListing) throws Exception {
    for (String name : List.of("groupState", "state")) {
      try {
        Object v = descriptionOrListing.getClass().getMethod(name).invoke(descriptionOrListing);
        if (v instanceof Optional<?> o) v = o.orElse(null);
        return v == null ? null : v.toString();
      } catch (NoSuchMethodException e) {
        // try the older name
      }
    }
    throw new IllegalStateException("no state accessor on " + descriptionOrListing.getClass());
  }

  private static Map<String, Object> node(Node n) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", n.id());
    m.put("host", n.host());
    m.put("port", n.port());
    return m;
  }

  /**
   * Runs `body` while no other driver process on this machine runs it against `bootstrap`: the
   * default user's quota is one entity on the broker, and java-client.test.ts runs the 4.x and 3.x
   * drivers against one broker at once, so one's clean-up removed the quota the other had just set
   * and was about to describe (seen once the JVMs started faster and in step).
   */
  private static Object oneDriverAtATime(String bootstrap, Callable<Object> body) throws Exception {
    java.nio.file.Path file = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
        "minnow-driver-" + bootstrap.replaceAll("[^0-9A-Za-z.]", "_") + ".lock");
    try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file,
            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
        java.nio.channels.FileLock lock = channel.lock()) {
      return body.call();
    }
  }

  /**
   * kafka-configs' calls for client quotas (KIP-546): set a client id's and the default user's
   * quotas, describe them (exact and default filters), remove one key, describe again; a bad key's
   * exception is recorded too.
   */
  private static Map<String, Object> clientQuotas(Admin admin, String prefix) throws Exception {
    Map<String, String> client = new java.util.HashMap<>();
    client.put(ClientQuotaEntity.CLIENT_ID, prefix + "-quota-client");
    Map<String, String> defaultUser = new java.util.HashMap<>();
    defaultUser.put(ClientQuotaEntity.USER, null);
    ClientQuotaEntity clientEntity = new ClientQuotaEntity(client);
    ClientQuotaEntity defaultUserEntity = new ClientQuotaEntity(defaultUser);
    admin.alterClientQuotas(List.of(
        new ClientQuotaAlteration(clientEntity, List.of(
            new ClientQuotaAlteration.Op("producer_byte_rate", 1048576.0),
            new ClientQuotaAlteration.Op("consumer_byte_rate", 2097152.0))),
        new ClientQuotaAlteration(defaultUserEntity, List.of(
            new ClientQuotaAlteration.Op("request_percentage", 25.0))))).all().get();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("client", quotasOf(admin, ClientQuotaFilter.containsOnly(
        List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.CLIENT_ID, prefix + "-quota-client")))));
    r.put("defaultUser", quotasOf(admin, ClientQuotaFilter.containsOnly(
        List.of(ClientQuotaFilterComponent.ofDefaultEntity(ClientQuotaEntity.USER)))));
    admin.alterClientQuotas(List.of(new ClientQuotaAlteration(clientEntity, List.of(
        new ClientQuotaAlteration.Op("consumer_byte_rate", null))))).all().get();
    r.put("clientAfterRemove", quotasOf(admin, ClientQuotaFilter.containsOnly(
        List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.CLIENT_ID, prefix + "-quota-client")))));
    try {
      admin.alterClientQuotas(List.of(new ClientQuotaAlteration(clientEntity, List.of(
          new ClientQuotaAlteration.Op("producer_byte_rat", 1.0))))).all().get();
      r.put("badKey", "accepted");
    } catch (Exception e) {
      r.put("badKey", Errors.kind(e));
    }
    // Leave nothing behind that would throttle another scenario.
    admin.alterClientQuotas(List.of(
        new ClientQuotaAlteration(clientEntity, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", null))),
        new ClientQuotaAlteration(defaultUserEntity, List.of(new ClientQuotaAlteration.Op("request_percentage", null)))))
        .all().get();
    return r;
  }

  /** Entity (as "type=name" joined, "<default>" for null) to its quotas, sorted. */
  private static Map<String, Object> quotasOf(Admin admin, ClientQuotaFilter filter) throws Exception {
    Map<String, Object> out = new TreeMap<>();
    admin.describeClientQuotas(filter).entities().get().forEach((entity, values) -> {
      List<String> parts = new ArrayList<>();
      new TreeMap<>(entity.entries()).forEach((t, n) -> parts.add(t + "=" + (n == null ? "<default>" : n)));
      out.put(String.join(",", parts), new TreeMap<>(values));
    });
    return out;
  }
}
