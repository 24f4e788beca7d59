"""confluent-kafka in a group converted online (KIP-848 upgrade): a classic consumer
(group.protocol=classic) reads alone, then a group.protocol=consumer one joins the live group; both
poll in turn, committing after each poll, until every record (produced before and after the join)
was read. Prints how many each read, the values read twice, the errors and both assignments.

usage: ck_mixed_group.py BOOTSTRAP TOPIC GROUP TIMEOUT_S"""
import json
import sys
import time

from confluent_kafka import KafkaException, Producer
from ck_groups import group_consumer

bootstrap, topic, group, timeout_s = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
PARTITIONS = 4
errors = []
reads = {}


def record(err):
    errors.append({"name": err.name(), "message": err.str(), "fatal": err.fatal()})


def produce(prefix):
    p = Producer({"bootstrap.servers": bootstrap, "error_cb": record})
    for part in range(PARTITIONS):
        for i in range(10):
            p.produce(topic, value=f"{prefix}-{part}-{i}", partition=part)
    p.flush(10)


def consumer(protocol):
    return group_consumer(bootstrap, group, topic, protocol, record)


def poll(members, read_by, done):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and not done() and not any(e["fatal"] for e in errors):
        for name, c in members.items():
            try:
                msgs = c.consume(100, 0.1)
            except KafkaException as e:
                record(e.args[0])
                continue
            got = [m for m in msgs if not m.error()]
            for m in msgs:
                if m.error():
                    record(m.error())
            for m in got:
                v = m.value().decode()
                reads[v] = reads.get(v, 0) + 1
            if got:
                read_by[name] = read_by.get(name, 0) + len(got)
                try:
                    c.commit(asynchronous=False)
                except KafkaException as e:
                    record(e.args[0])


produce("before")
members = {"classic": consumer("classic")}
read_by = {}
poll(members, read_by, lambda: len(reads) >= 40)
members["consumer"] = consumer("consumer")
poll(members, read_by, lambda: all(len(c.assignment()) > 0 for c in members.values()))
produce("after")
poll(members, read_by, lambda: len(reads) >= 80)
assignments = {name: sorted(tp.partition for tp in c.assignment()) for name, c in members.items()}
for c in members.values():
    c.close()
print(json.dumps({
    "readBy": read_by,
    "read": len(reads),
    "twice": sorted(v for v, n in reads.items() if n > 1),
    "assignments": assignments,
    "errors": errors,
}))
