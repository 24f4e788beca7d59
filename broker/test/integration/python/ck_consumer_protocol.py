"""confluent-kafka with group.protocol=consumer (KIP-848), which the broker does not implement: the
client must fail loudly (an error from poll() or error_cb) within TIMEOUT_S rather than wait
forever. Prints the errors it got, whether one was fatal, and librdkafka's log lines.

usage: ck_consumer_protocol.py BOOTSTRAP TOPIC GROUP TIMEOUT_S"""
import json
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, KafkaException

from ck_logs import librdkafka_logger

bootstrap, topic, group, timeout_s = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
errors = []
logger, logs = librdkafka_logger("ck_consumer_protocol")


def record(err):
    errors.append({"name": err.name(), "message": err.str(), "fatal": err.fatal()})


consumer = Consumer({
    "bootstrap.servers": bootstrap,
    "group.id": group,
    "group.protocol": "consumer",
    "error_cb": record,
    "logger": logger,
})
consumer.subscribe([topic])
deadline = time.monotonic() + timeout_s
values = []
while time.monotonic() < deadline and not errors:
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
consumer.close()
print(json.dumps({"librdkafka": confluent_kafka.libversion()[0], "errors": errors, "values": values, "logs": logs.summary()}))
