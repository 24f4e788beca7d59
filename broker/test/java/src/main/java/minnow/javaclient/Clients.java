package minnow.javaclient;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Client factories with the client's defaults except for timeouts, which are bounded so a broker
 * that does not answer fails a scenario within seconds instead of the defaults' minutes. The
 * properties file named by -Dminnow.clientConfig (security.protocol, ssl.*) goes to every client.
 */
final class Clients {
  final String bootstrap;
  final String prefix;
  private final Properties common = new Properties();

  Clients(String bootstrap, String prefix) throws IOException {
    this.bootstrap = bootstrap;
    this.prefix = prefix;
    String file = System.getProperty("minnow.clientConfig");
    if (file != null) {
      try (InputStream in = Files.newInputStream(Path.of(file))) {
        common.load(in);
      }
    }
  }

  String name(String suffix) {
    return prefix + "-" + suffix;
  }

  /** Producer with the default acks=all and idempotence (Java 3.0+), so it sends InitProducerId. */
  KafkaProducer<String, String> producer(Map<String, Object> overrides) {
    Properties p = new Properties();
    p.putAll(common);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, name("producer"));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.putAll(overrides);
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  /** Consumer that commits only when told to and starts at the earliest offset without a commit. */
  KafkaConsumer<String, String> consumer(String groupId, Map<String, Object> overrides) {
    Properties p = new Properties();
    p.putAll(common);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, name("consumer"));
    if (groupId != null) p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    // The classic protocol's rebalance timeout: how long a JoinGroup waits for the other members.
    p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 20_000);
    p.putAll(overrides);
    // With group.protocol=consumer (KIP-848) the coordinator owns these; the client rejects them.
    if (!"consumer".equalsIgnoreCase(String.valueOf(p.get("group.protocol")))) {
      p.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
      p.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
    }
    return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
  }

  Admin admin() {
    Properties p = new Properties();
    p.putAll(common);
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, name("admin"));
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    return Admin.create(p);
  }

  /** KIP-932 share consumer (kafka-clients 4.1+ speaks the stable share APIs). */
  org.apache.kafka.clients.consumer.KafkaShareConsumer<String, String> shareConsumer(String groupId, Map<String, Object> overrides) {
    Properties p = new Properties();
    p.putAll(common);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, name("share"));
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.putAll(overrides);
    return new org.apache.kafka.clients.consumer.KafkaShareConsumer<>(p, new StringDeserializer(), new StringDeserializer());
  }
}
