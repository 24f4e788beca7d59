"""confluent-kafka: a group member (subscribe, classic protocol) reads TOPIC until it has EXPECT
records or TIMEOUT_S passes, committing each record synchronously before it prints it as a JSON
line {"partition", "offset", "value"}; a record whose commit fails is recorded as an error and not
counted (the group redelivers it). Then it polls one more second to catch records beyond EXPECT,
prints a summary line {"values", "committed", "errors"} (errors as {"name", "message"}) and leaves
the group.

usage: ck_group_consume.py BOOTSTRAP TOPIC GROUP EXPECT TIMEOUT_S [GROUP_PROTOCOL]
(GROUP_PROTOCOL: classic, the default, or consumer for KIP-848)"""
import json
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, KafkaException

bootstrap, topic, group, expect, timeout_s = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
group_protocol = sys.argv[6] if len(sys.argv) > 6 else "classic"
errors, values = [], []
config = {
    "bootstrap.servers": bootstrap,
    "group.id": group,
    "auto.offset.reset": "earliest",
    "enable.auto.commit": False,
    "error_cb": lambda err: errors.append({"name": err.name(), "message": err.str()}),
}
# librdkafka before 2.4 (Debian's 1.7) has no group.protocol setting and refuses it: name it only
# when it is not the classic default.
if group_protocol != "classic":
    config["group.protocol"] = group_protocol
consumer = Consumer(config)
consumer.subscribe([topic])


def poll_until(deadline, stop_at_expect):
    while time.monotonic() < deadline:
        if stop_at_expect and len(values) >= expect:
            return
        msg = consumer.poll(0.2)
        if msg is None:
            continue
        if msg.error():
            errors.append({"name": msg.error().name(), "message": msg.error().str()})
            continue
        try:
            consumer.commit(message=msg, asynchronous=False)
        except KafkaException as e:
            # Not committed, so not counted: the group redelivers it from the last commit.
            errors.append({"name": e.args[0].name(), "message": e.args[0].str()})
            continue
        values.append(msg.value().decode())
        print(json.dumps({"partition": msg.partition(), "offset": msg.offset(), "value": values[-1]}), flush=True)


poll_until(time.monotonic() + timeout_s, True)
poll_until(time.monotonic() + 1.0, False)  # anything past EXPECT is a redelivery the test must see
committed = {tp.partition: tp.offset for tp in consumer.committed(consumer.assignment(), timeout=10)}
consumer.close()
print(json.dumps({"librdkafka": confluent_kafka.libversion()[0], "values": values, "committed": committed, "errors": errors}), flush=True)
