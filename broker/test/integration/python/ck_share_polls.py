"""confluent-kafka's ShareConsumer on a topic of two partitions, each holding PER_PARTITION records
produced before the group's first fetch: prints, as one JSON line, the partitions and record count
of each non-empty poll (explicit acknowledgement, each record accepted), the errors and librdkafka's
warning-or-worse log lines. Kafka 4.1.1 answers the first ShareFetch with one partition's records
(its share-partitions initialize one after the other) and the next with the other's; librdkafka's
0179 expects that split.

usage: ck_share_polls.py BOOTSTRAP TOPIC GROUP PER_PARTITION TIMEOUT_S"""
import json
import sys
import time

from confluent_kafka import KafkaException, Producer, ShareConsumer
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType, NewTopic

from ck_logs import librdkafka_logger

bootstrap, topic, group = sys.argv[1], sys.argv[2], sys.argv[3]
per_partition, timeout_s = int(sys.argv[4]), float(sys.argv[5])
errors, polls = [], []
logger, logs = librdkafka_logger("ck_share_polls")

admin = AdminClient({"bootstrap.servers": bootstrap})
for f in admin.create_topics([NewTopic(topic, 2, 1)]).values():
    f.result()
producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
for partition in (0, 1):
    for i in range(per_partition):
        producer.produce(topic, value=f"{partition} {i}".encode(), partition=partition)
    producer.flush(30)
earliest = ConfigEntry("share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET)
for f in admin.incremental_alter_configs([ConfigResource(ResourceType.GROUP, group, incremental_configs=[earliest])]).values():
    f.result()

consumer = ShareConsumer({
    "bootstrap.servers": bootstrap,
    "group.id": group,
    "share.acknowledgement.mode": "explicit",
    "error_cb": lambda err: errors.append(err.str()),
    "logger": logger,
})
consumer.subscribe([topic])
deadline = time.monotonic() + timeout_s
while time.monotonic() < deadline and sum(p["count"] for p in polls) < 2 * per_partition:
    try:
        msgs = [m for m in consumer.poll(1.0) if not m.error()]
    except KafkaException as e:
        errors.append(str(e))
        continue
    for m in msgs:
        consumer.acknowledge(m)
    if msgs:
        polls.append({"count": len(msgs), "partitions": sorted({m.partition() for m in msgs})})
consumer.close()
print(json.dumps({"polls": polls, "errors": errors, "logs": logs.summary()}))
