"""confluent-kafka's ShareConsumer (KIP-932 share groups, librdkafka's share consumer) against the
broker: one scenario per run, printing one JSON line with what the members received, the
acknowledgement results, the errors and librdkafka's warning-or-worse log lines.

The topic must exist with its records already produced; the script sets the group's
share.auto.offset.reset=earliest (a GROUP config, with the AdminClient) before its members join.

usage: ck_share_consumer.py BOOTSTRAP TOPIC GROUP SCENARIO COUNT TIMEOUT_S
scenarios:
  implicit      one member reads COUNT records (implicit mode: each poll accepts the previous
                one's), commit_sync, close
  explicit      explicit mode: offsets % 3 == 0 ACCEPT, 1 RELEASE (at their 1st delivery,
                accepted at the 2nd), 2 REJECT; reads until every offset was accepted or rejected
  shared        two members of one group poll the same partition in turns, each accepting what it
                got with commit_async; together they must see COUNT records once each
  close         members in turn each ACCEPT one fetch (<= 6 records) and close() without a commit;
                a last member then polls the group for 3 s
  async         explicit ACCEPT of each record, sent with commit_async, results from the
                acknowledgement commit callback
"""
import json
import os
import sys
import time

import confluent_kafka
from confluent_kafka import AcknowledgeType, KafkaException, ShareConsumer
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

from ck_logs import librdkafka_logger

bootstrap, topic, group, scenario = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
count, timeout_s = int(sys.argv[5]), float(sys.argv[6])
errors = []
logger, logs = librdkafka_logger("ck_share_consumer")
deadline = time.monotonic() + timeout_s


def record(err):
    errors.append({"name": err.name(), "message": err.str(), "fatal": err.fatal()})


def member(mode="implicit", **extra):
    config = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "share.acknowledgement.mode": mode,
        "error_cb": record,
        **extra,
    }
    # CK_DEBUG=cgrp,fetch,protocol writes librdkafka's debug log to stderr instead of the tally.
    if os.environ.get("CK_DEBUG"):
        config["debug"] = os.environ["CK_DEBUG"]
    else:
        config["logger"] = logger
    consumer = ShareConsumer(config)
    consumer.subscribe([topic])
    return consumer


def poll(consumer, timeout=0.5):
    """The records of one poll as (partition, offset, value, delivery count); errors recorded."""
    try:
        msgs = consumer.poll(timeout)
    except KafkaException as e:
        record(e.args[0])
        return []
    got = []
    for m in msgs:
        if m.error():
            record(m.error())
        else:
            got.append(m)
    return got


def row(m):
    return [m.partition(), m.offset(), m.value().decode(), m.delivery_count()]


def commit_results(results):
    """commit_sync's answer as [[partition, error name or None], ...]."""
    return sorted([tp.partition, None if e is None else e.args[0].name()] for tp, e in results.items())


def implicit():
    consumer = member()
    received = []
    while time.monotonic() < deadline and len(received) < count:
        received += [row(m) for m in poll(consumer)]
    committed = commit_results(consumer.commit_sync(10))
    consumer.close()
    return {"received": received, "commit_sync": committed}


def explicit():
    consumer = member("explicit")
    received, done = [], set()
    acks = {0: AcknowledgeType.ACCEPT, 1: AcknowledgeType.RELEASE, 2: AcknowledgeType.REJECT}
    commits = []
    while time.monotonic() < deadline and len(done) < count:
        for m in poll(consumer):
            received.append(row(m))
            ack = acks[m.offset() % 3]
            if ack == AcknowledgeType.RELEASE and m.delivery_count() > 1:
                ack = AcknowledgeType.ACCEPT  # a released record came back: take it this time
            consumer.acknowledge(m, ack)
            if ack != AcknowledgeType.RELEASE:
                done.add(m.offset())
        commits += commit_results(consumer.commit_sync(10))
    # Nothing is left to deliver: what was accepted or rejected never comes back.
    again = [row(m) for m in poll(consumer, 2.0)]
    consumer.close()
    return {"received": received, "commit_sync": sorted(set(map(tuple, commits))), "again": again}


def shared():
    # Five records a fetch, so one member's first fetch does not take the whole partition.
    members = [member(**{"max.poll.records": 5}), member(**{"max.poll.records": 5})]
    received = [[], []]
    # Both members join and are given the partition before either reads much.
    while time.monotonic() < deadline and sum(map(len, received)) < count:
        for i, consumer in enumerate(members):
            received[i] += [row(m) for m in poll(consumer, 0.3)]
            consumer.commit_async()
    for consumer in members:
        consumer.close()
    return {"received": received}


def close():
    """Members one after another, each taking one fetch of at most 6 records (max.poll.records),
    acknowledging them and closing without a commit: close() must deliver the acknowledgements.
    librdkafka sends its leave heartbeat and the closing ShareAcknowledge at the same instant on
    two connections, so each close is one more chance to see them handled in either order."""
    rounds = []
    while time.monotonic() < deadline and sum(map(len, rounds)) < count:
        consumer = member("explicit", **{"max.poll.records": 6})
        got = []
        while time.monotonic() < deadline and not got:
            got = poll(consumer)
        for m in got:
            consumer.acknowledge(m)
        consumer.close()
        rounds.append([row(m) for m in got])
    last = member()
    end = time.monotonic() + 3
    after = []
    while time.monotonic() < end:
        after += [row(m) for m in poll(last)]
    last.close()
    return {"received": rounds, "after_close": after}


def commit_async():
    consumer = member("explicit")
    callbacks = []
    consumer.set_acknowledgement_commit_callback(
        lambda offsets, err: callbacks.append({
            "offsets": sorted([tp.partition, sorted(o)] for tp, o in offsets.items()),
            "error": None if err is None else err.args[0].name(),
        })
    )
    received = []
    while time.monotonic() < deadline and len(received) < count:
        for m in poll(consumer):
            received.append(row(m))
            consumer.acknowledge(m)
        consumer.commit_async()
    # The callbacks are served by the consumer's calls: poll until they cover every record.
    acked = lambda: sum(len(o) for c in callbacks for _, o in c["offsets"])
    while time.monotonic() < deadline and acked() < len(received):
        poll(consumer, 0.2)
    consumer.close()
    return {"received": received, "callbacks": callbacks}


def start_at_earliest():
    setting = ConfigEntry("share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ResourceType.GROUP, group, incremental_configs=[setting])
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.incremental_alter_configs([resource]).values():
        future.result(10)


start_at_earliest()
out = {"implicit": implicit, "explicit": explicit, "shared": shared, "close": close, "async": commit_async}[scenario]()
out.update({
    "librdkafka": confluent_kafka.libversion()[0],
    "errors": errors,
    "logs": logs.summary(),
})
print(json.dumps(out))
