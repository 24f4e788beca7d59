package minnow.javaclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java client (kafka-clients, as kafka-configs and the Java admin use it) over SASL_PLAINTEXT,
 * for sasl-java.test.ts. Usage: SaslCheck BOOTSTRAP MECHANISM USER PASSWORD TOPIC PAUSE_MS. Prints
 * one JSON line: what the admin and the producer/consumer saw. (It ran in java's source-file mode
 * before, which compiled it again in every run: ~2 CPU-s each.)
 */
public final class SaslCheck {
  static Properties sasl(String bootstrap, String mechanism, String user, String password) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", mechanism);
    String module = mechanism.equals("PLAIN")
        ? "org.apache.kafka.common.security.plain.PlainLoginModule"
        : "org.apache.kafka.common.security.scram.ScramLoginModule";
    p.put("sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
    p.put("request.timeout.ms", "10000");
    p.put("default.api.timeout.ms", "20000");
    return p;
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], mechanism = args[1], user = args[2], password = args[3], topic = args[4];
    long pauseMs = Long.parseLong(args[5]);
    StringBuilder out = new StringBuilder("{");
    try (Admin admin = Admin.create(sasl(bootstrap, mechanism, user, password))) {
      // What kafka-configs --alter --add-config 'SCRAM-SHA-512=[iterations=8192,password=...]' does.
      admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
          "java-user", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), "java-pw"))).all().get();
      Map<String, UserScramCredentialsDescription> d = admin.describeUserScramCredentials(List.of("java-user")).all().get();
      ScramCredentialInfo info = d.get("java-user").credentialInfos().get(0);
      out.append("\"described\":[").append(quote(info.mechanism().mechanismName())).append(",").append(info.iterations()).append("],");
      String refused;
      try {
        admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
            "weak", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 100), "pw"))).all().get();
        refused = "accepted";
      } catch (Exception e) {
        refused = e.getCause().getClass().getSimpleName();
      }
      out.append("\"weak\":").append(quote(refused)).append(",");
    }
    Properties pp = sasl(bootstrap, "SCRAM-SHA-512", "java-user", "java-pw");
    pp.put("key.serializer", StringSerializer.class.getName());
    pp.put("value.serializer", StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
      producer.send(new ProducerRecord<>(topic, "first")).get();
      Thread.sleep(pauseMs); // past the session lifetime: the client re-authenticates on its connection
      producer.send(new ProducerRecord<>(topic, "second")).get();
    }
    Properties cp = sasl(bootstrap, "SCRAM-SHA-512", "java-user", "java-pw");
    cp.put("key.deserializer", StringDeserializer.class.getName());
    cp.put("value.deserializer", StringDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.currentTimeMillis() + 20_000;
      while (values.size() < 2 && System.currentTimeMillis() < deadline)
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) values.add(r.value());
    }
    out.append("\"values\":[");
    for (int i = 0; i < values.size(); i++) out.append(i > 0 ? "," : "").append(quote(values.get(i)));
    out.append("]}");
    System.out.println(out);
  }
}
