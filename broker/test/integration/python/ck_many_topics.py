"""confluent-kafka AdminClient: one CreateTopics of N topics (some of which fail on their own:
names that exist, names Kafka refuses), the same request with validate_only, then one DeleteTopics
of every name plus some that never existed. Each topic's outcome is counted by error name; one JSON
line at the end.

usage: ck_many_topics.py BOOTSTRAP PREFIX N"""
import json
import sys
from collections import Counter

import confluent_kafka
from confluent_kafka.admin import AdminClient, NewTopic

bootstrap, prefix, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
TIMEOUT = 120
admin = AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": TIMEOUT * 1000})


def name(i):
    # Every 100th name has a space, which Kafka refuses (INVALID_TOPIC_EXCEPTION).
    return f"{prefix} bad {i}" if i % 100 == 50 else f"{prefix}-{i}"


def outcomes(futures):
    """Counts of each topic's outcome: "ok" or its KafkaError's name."""
    counts = Counter()
    for future in futures.values():
        try:
            future.result(timeout=TIMEOUT)
            counts["ok"] += 1
        except confluent_kafka.KafkaException as e:
            counts[e.args[0].name()] += 1
    return dict(counts)


names = [name(i) for i in range(n)]
out = {}
new = [NewTopic(t, num_partitions=1, replication_factor=1) for t in names]
out["validate_only"] = outcomes(admin.create_topics(new, request_timeout=TIMEOUT, validate_only=True))
out["create"] = outcomes(admin.create_topics(new, request_timeout=TIMEOUT))
out["delete"] = outcomes(admin.delete_topics(names + [f"{prefix}-ghost-{i}" for i in range(5)], request_timeout=TIMEOUT))
print(json.dumps(out))
