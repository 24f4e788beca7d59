"""confluent-kafka: a consumer assigned out-of-range positions resets them with
auto.offset.reset=earliest and reads what is there. TOPIC gets 2 partitions with COUNT records each
("p0 i", "p1 i"); partition 1's records before DELETE_BEFORE are deleted. The consumer starts
partition 0 past its end (offset 1000) and partition 1 below its log start (offset 1): the broker
answers OFFSET_OUT_OF_RANGE for both, the client resets to the earliest offsets (0 and
DELETE_BEFORE) and must end with those records within TIMEOUT_S. One JSON line at the end.

usage: ck_offset_reset.py BOOTSTRAP TOPIC COUNT DELETE_BEFORE TIMEOUT_S"""
import json
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from ck_logs import librdkafka_logger

bootstrap, topic, count, delete_before, timeout_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
errors = []
logger, logs = librdkafka_logger("ck_offset_reset")
admin = AdminClient({"bootstrap.servers": bootstrap})
admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])[topic].result(timeout=15)
producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
for p in (0, 1):
    for i in range(count):
        producer.produce(topic, value=f"p{p} {i}".encode(), partition=p)
if producer.flush(15):
    raise SystemExit("records left unflushed")
admin.delete_records([TopicPartition(topic, 1, delete_before)])[TopicPartition(topic, 1)].result(timeout=15)

consumer = Consumer({
    "bootstrap.servers": bootstrap,
    "group.id": "ck-offset-reset-unused",  # assign() only: nothing joins or commits
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "error_cb": lambda err: errors.append(f"error_cb: {err}"),
    "logger": logger,
})
consumer.assign([TopicPartition(topic, 0, 1000), TopicPartition(topic, 1, 1)])
expect = count + (count - delete_before)
values = {0: [], 1: []}
deadline = time.monotonic() + timeout_s
while time.monotonic() < deadline and len(values[0]) + len(values[1]) < expect:
    msg = consumer.poll(0.2)
    if msg is None:
        continue
    if msg.error():
        errors.append(str(msg.error()))
        continue
    values[msg.partition()].append([msg.offset(), msg.value().decode()])
consumer.close()
print(json.dumps({"librdkafka": confluent_kafka.libversion()[0], "values": values, "errors": errors, "logs": logs.summary()}))
