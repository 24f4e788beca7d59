"""confluent-kafka, a rolling restart back to the classic protocol (KIP-848 downgrade): a static
member (group.instance.id) with group.protocol=consumer reads and commits half the records and
closes (a static member's leave keeps its place); a classic static member with the same
group.instance.id takes its place (Kafka converts the group back to a classic group then) and reads
the rest. Prints what each read, the group's type afterwards, the errors.

usage: ck_static_downgrade.py BOOTSTRAP TOPIC GROUP TIMEOUT_S"""
import json
import sys
import time

from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient
from ck_groups import group_consumer

bootstrap, topic, group, timeout_s = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
COUNT = 40
errors = []


def record(err):
    errors.append({"name": err.name(), "message": err.str(), "fatal": err.fatal()})


def produce(prefix, n):
    p = Producer({"bootstrap.servers": bootstrap, "error_cb": record})
    for i in range(n):
        p.produce(topic, value=f"{prefix}-{i}", partition=i % 2)
    p.flush(10)


def member(protocol):
    return group_consumer(bootstrap, group, topic, protocol, record, **{"group.instance.id": "rolling-1"})


def read(c, want):
    got = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and len(got) < want:
        try:
            msgs = c.consume(100, 0.2)
        except KafkaException as e:
            record(e.args[0])
            continue
        for m in msgs:
            if m.error():
                record(m.error())
            else:
                got.append(m.value().decode())
        if msgs:
            c.commit(asynchronous=False)
    return got


produce("before", COUNT)
first = member("consumer")
by_consumer = read(first, COUNT)
first.close()
produce("after", COUNT)
second = member("classic")
by_classic = read(second, COUNT)
admin = AdminClient({"bootstrap.servers": bootstrap})
listed = admin.list_consumer_groups().result()
types = {g.group_id: str(getattr(g, "type", None)) for g in listed.valid}
second.close()
print(json.dumps({
    "byConsumer": len(by_consumer),
    "byClassic": sorted(by_classic),
    "groupType": types.get(group),
    "errors": errors,
}))
