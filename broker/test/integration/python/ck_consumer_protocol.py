"""confluent-kafka with group.protocol=consumer (KIP-848): the broker assigns the partitions. Reads
COUNT records (or stops at TIMEOUT_S), commits them, and prints the values, the errors it got, the
committed offsets and librdkafka's log lines.

usage: ck_consumer_protocol.py BOOTSTRAP TOPIC GROUP COUNT TIMEOUT_S"""
import json
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, KafkaException

from ck_logs import librdkafka_logger

bootstrap, topic, group, count, timeout_s = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
errors = []
logger, logs = librdkafka_logger("ck_consumer_protocol")


def record(err):
    errors.append({"name": err.name(), "message": err.str(), "fatal": err.fatal()})


consumer = Consumer({
    "bootstrap.servers": bootstrap,
    "group.id": group,
    "group.protocol": "consumer",
    "auto.offset.reset": "earliest",
    "enable.auto.commit": False,
    "error_cb": record,
    "logger": logger,
})
consumer.subscribe([topic])
deadline = time.monotonic() + timeout_s
values = []
while time.monotonic() < deadline and len(values) < count and not any(e["fatal"] for e in errors):
    try:
        msg = consumer.poll(0.2)
    except KafkaException as e:
        record(e.args[0])
        break
    if msg is None:
        continue
    if msg.error():
        record(msg.error())
    else:
        values.append(msg.value().decode())
committed = []
if values:
    consumer.commit(asynchronous=False)
    committed = [[tp.partition, tp.offset] for tp in consumer.committed(consumer.assignment(), timeout=10)]
consumer.close()
print(json.dumps({
    "librdkafka": confluent_kafka.libversion()[0],
    "errors": errors,
    "values": values,
    "committed": sorted(committed),
    "logs": logs.summary(),
}))
