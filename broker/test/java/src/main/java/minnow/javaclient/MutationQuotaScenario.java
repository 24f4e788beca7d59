package minnow.javaclient;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.ThrottlingQuotaExceededException;

/**
 * KIP-599 controller_mutation_rate as the AdminClient sees it. The test sets a rate of 1 partition
 * a second on the admin's client id (11 tokens with Kafka's 11 one-second samples): 11 partitions
 * pass, 10 more overdraw the bucket, and the next topic is refused with
 * ThrottlingQuotaExceededException and its throttle time (retryOnQuotaViolation off, else the
 * client would wait and retry on its own).
 */
final class MutationQuotaScenario {
  private MutationQuotaScenario() {}

  static Map<String, Object> run(Clients clients) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    CreateTopicsOptions noRetry = new CreateTopicsOptions().retryOnQuotaViolation(false);
    try (Admin admin = clients.admin()) {
      admin.createTopics(List.of(new NewTopic(clients.name("mq-a"), 11, (short) 1)), noRetry).all().get();
      admin.createTopics(List.of(new NewTopic(clients.name("mq-b"), 10, (short) 1)), noRetry).all().get();
      try {
        admin.createTopics(List.of(new NewTopic(clients.name("mq-c"), 1, (short) 1)), noRetry).all().get();
        out.put("third", "created");
      } catch (ExecutionException e) {
        Throwable t = Errors.unwrap(e);
        out.put("third", t.getClass().getSimpleName());
        out.put("message", t.getMessage());
        if (t instanceof ThrottlingQuotaExceededException) {
          out.put("throttleTimeMs", ((ThrottlingQuotaExceededException) t).throttleTimeMs());
        }
      }
    }
    return out;
  }
}
