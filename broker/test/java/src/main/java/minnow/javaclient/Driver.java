package minnow.javaclient;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Runs scenarios of the Java client against a broker and prints one JSON line per scenario on
 * stdout: {"scenario":..., "ok":true|false, ...what the client returned...}. Exits 1 if any
 * scenario threw. Usage: Driver BOOTSTRAP PREFIX SCENARIO... (PREFIX names topics and groups so
 * runs of several client versions can share one broker).
 */
public final class Driver {
  private static final ObjectMapper JSON = new ObjectMapper();

  interface Scenario {
    Map<String, Object> run(Clients clients) throws Exception;
  }

  private static Scenario scenario(String name) {
    switch (name) {
      case "failover":
        return FailoverScenario::run;
      case "produce":
        return ProduceScenario::run;
      case "group":
        return GroupScenario::run;
      case "admin":
        return AdminScenario::run;
      case "fetch":
        return FetchScenario::run;
      case "rebalance":
        return RebalanceScenario::run;
      case "transactions":
        return TransactionsScenario::run;
      case "transactions-v2":
        return TransactionsV2Scenario::run;
      case "consumer-protocol":
        return ConsumerProtocolScenario::run;
      case "migration":
        return MigrationScenario::run;
      case "compaction":
        return CompactionScenario::run;
      case "cluster":
        return ClusterScenario::run;
      case "share":
        return ShareScenario::run;
      case "share-admin":
        return ShareAdminScenario::run;
      case "mutation-quota":
        return MutationQuotaScenario::run;
      default:
        throw new IllegalArgumentException("unknown scenario '" + name + "': use produce, fetch, group, rebalance, admin, transactions, transactions-v2, consumer-protocol, migration, compaction, cluster, mutation-quota, share or share-admin");
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: Driver BOOTSTRAP PREFIX SCENARIO...");
      System.exit(2);
    }
    Clients clients = new Clients(args[0], args[1]);
    boolean failed = false;
    print(Map.of("scenario", "version", "ok", true, "kafkaClients", clientVersion()));
    for (String name : List.of(args).subList(2, args.length)) {
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("scenario", name);
      long start = System.nanoTime();
      try {
        line.putAll(scenario(name).run(clients));
        line.putIfAbsent("ok", true);
      } catch (Exception e) {
        line.put("ok", false);
        line.put("error", Errors.describe(e));
      }
      line.put("elapsedMs", (System.nanoTime() - start) / 1_000_000);
      failed |= !Boolean.TRUE.equals(line.get("ok"));
      print(line);
    }
    System.exit(failed ? 1 : 0);
  }

  static void print(Map<String, Object> line) throws Exception {
    System.out.println(JSON.writeValueAsString(line));
    System.out.flush();
  }

  private static String clientVersion() throws Exception {
    Properties p = new Properties();
    try (InputStream in = Driver.class.getResourceAsStream("/driver.properties")) {
      p.load(in);
    }
    return p.getProperty("kafka.version");
  }
}
