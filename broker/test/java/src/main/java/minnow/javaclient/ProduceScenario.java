package minnow.javaclient;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The producer with its defaults (acks=all, idempotence: InitProducerId first) and each codec:
 * RECORDS records with keys and two headers to topic PREFIX-codec-CODEC, read back by a plain
 * (assign) consumer. The test reads the same topics with kcat.
 */
final class ProduceScenario {
  static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");
  static final int RECORDS = 20;

  private ProduceScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    Map<String, Object> byCodec = new LinkedHashMap<>();
    boolean ok = true;
    try (Admin admin = clients.admin()) {
      for (String codec : CODECS) {
        Map<String, Object> result = new LinkedHashMap<>();
        long start = System.nanoTime();
        try {
          String topic = clients.name("codec-" + codec);
          admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
          result.put("topic", topic);
          result.put("offsets", produce(clients, topic, codec));
          result.put("producedMs", (System.nanoTime() - start) / 1_000_000);
          try (KafkaConsumer<String, String> consumer = clients.consumer(null, Map.of())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            result.put("records", Records.pollUntil(consumer, RECORDS, Duration.ofSeconds(15)));
          }
        } catch (Exception e) {
          ok = false;
          result.put("error", Errors.describe(e));
        }
        result.put("elapsedMs", (System.nanoTime() - start) / 1_000_000);
        byCodec.put(codec, result);
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("ok", ok);
    out.put("codecs", byCodec);
    return out;
  }

  static String value(String codec, int i) {
    // Repetitive so every codec really shrinks the batch.
    return codec + " value " + i + " " + "minnow ".repeat(8);
  }

  private static List<Long> produce(Clients clients, String topic, String codec) throws Exception {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<String, String> producer = clients.producer(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec))) {
      for (int i = 0; i < RECORDS; i++) {
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, 0, "key-" + i, value(codec, i));
        r.headers().add("codec", codec.getBytes(StandardCharsets.UTF_8));
        r.headers().add("index", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
        sent.add(producer.send(r));
      }
      producer.flush();
    }
    List<Long> offsets = new ArrayList<>();
    for (Future<RecordMetadata> f : sent) offsets.add(f.get().offset());
    return offsets;
  }
}
