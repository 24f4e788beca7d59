"""confluent-kafka (librdkafka) transactions, one scenario per subcommand; each prints one JSON line
last. Errors are {"name", "fatal", "abortable", "retriable", "message"}.

usage:
  ck_transactions.py commit-abort BOOTSTRAP TOPIC TXN_ID
      a topic of 2 partitions; transaction 1 writes "committed-1 P i" to both partitions and
      commits, transaction 2 writes "aborted P i" and aborts, transaction 3 writes
      "committed-2 P i" and commits (so a read_committed reader must read past the aborted one).
  ck_transactions.py read BOOTSTRAP TOPIC ISOLATION TIMEOUT_S [START]
      assigns every partition from the beginning (or offset START) with isolation.level=ISOLATION
      and reads to the end of each (partition EOF: the last stable offset under read_committed); prints
      {"records": [[partition, offset, value-or-null], ...]}.
  ck_transactions.py transform BOOTSTRAP IN_TOPIC OUT_TOPIC GROUP TXN_ID COUNT
      a consume-transform-produce step: COUNT records read from IN_TOPIC (a group member,
      read_committed, no auto commit) are written upper-cased to OUT_TOPIC in a transaction with
      send_offsets_to_transaction(position) and committed; then COUNT more the same way, aborted.
      Prints the offsets sent in each and the group's committed offsets after each.
  ck_transactions.py interleave BOOTSTRAP TOPIC
      two transactional producers X and Y write alternately to one partition (each record flushed
      before the next): round 1 "x1 i"/"y1 i", X aborts then Y commits; round 2 "y2 i"/"x2 i", Y
      aborts then X commits. The aborted ranges overlap committed records of the other producer.
  ck_transactions.py fence BOOTSTRAP TOPIC TXN_ID
      producer 1 begins and writes "zombie"; producer 2 with the same transactional.id inits (fencing
      producer 1 and aborting its transaction), writes "successor" and commits; producer 1's
      commit_transaction must fail fatally.
  ck_transactions.py timeout BOOTSTRAP TOPIC TXN_ID TIMEOUT_MS WAIT_S
      a producer with transaction.timeout.ms=TIMEOUT_MS begins, writes "left-open i" and never ends
      the transaction; an idempotent (non-transactional) producer then writes "after"; a
      read_committed reader polls until it gets "after" (the broker must abort the open
      transaction to move the last stable offset) within WAIT_S; then the left producer's commit
      is attempted and its error reported.
  ck_transactions.py restart BOOTSTRAP TOPIC TXN_ID MODE TIMEOUT_MS WAIT_S
      begins a transaction (transaction.timeout.ms=TIMEOUT_MS), writes "before i", prints
      {"ready": true} and waits for a line on stdin (the test kills and restarts the broker
      meanwhile). MODE commit: writes "after i" and commits the same transaction. MODE leave: an
      idempotent producer writes "plain" and a read_committed reader polls until it gets it (the
      restarted broker must time the transaction out), then the left producer's commit is tried.
"""
import json
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

errors = []


def err_json(err):
    return {
        "name": err.name(),
        "fatal": err.fatal(),
        "abortable": err.txn_requires_abort(),
        "retriable": err.retriable(),
        "message": err.str(),
    }


def on_error(err):
    errors.append(err_json(err))


def ensure_topic(bootstrap, topic, partitions):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])
    try:
        futures[topic].result(30)
    except KafkaException as e:
        if e.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
            raise


def txn_producer(bootstrap, txn_id, **extra):
    conf = {
        "bootstrap.servers": bootstrap,
        "transactional.id": txn_id,
        "linger.ms": 5,
        "error_cb": on_error,
    }
    conf.update(extra)
    p = Producer(conf)
    p.init_transactions(30)
    return p


def delivery_to(delivered):
    def cb(err, msg):
        if err:
            errors.append(err_json(err))
        else:
            delivered.append([msg.partition(), msg.offset(), msg.value().decode()])

    return cb


def commit_abort(bootstrap, topic, txn_id):
    ensure_topic(bootstrap, topic, 2)
    p = txn_producer(bootstrap, txn_id)
    delivered = []
    cb = delivery_to(delivered)
    for label, commit in (("committed-1", True), ("aborted", False), ("committed-2", True)):
        p.begin_transaction()
        for part in (0, 1):
            for i in range(3):
                p.produce(topic, value=f"{label} {part} {i}".encode(), partition=part, on_delivery=cb)
        # Flushed first so the aborted records are in the log, not dropped client-side.
        p.flush(30)
        if commit:
            p.commit_transaction(30)
        else:
            p.abort_transaction(30)
    return {"delivered": sorted(delivered)}


def read(bootstrap, topic, isolation, timeout_s, start=confluent_kafka.OFFSET_BEGINNING):
    c = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": f"ck-txn-reader-{time.time_ns()}",
        "isolation.level": isolation,
        "enable.auto.commit": False,
        "enable.partition.eof": True,
        # The end of a partition shows when a fetch comes back empty, which the broker holds for
        # fetch.wait.max.ms (500 ms by default): every read waited that out once at its end.
        "fetch.wait.max.ms": 100,
        "error_cb": on_error,
    })
    md = c.list_topics(topic, timeout=30)
    parts = sorted(md.topics[topic].partitions.keys())
    c.assign([TopicPartition(topic, p, start) for p in parts])
    records, at_eof = [], set()
    deadline = time.monotonic() + timeout_s
    while len(at_eof) < len(parts) and time.monotonic() < deadline:
        msg = c.poll(0.2)
        if msg is None:
            continue
        if msg.error():
            if msg.error().code() == KafkaError._PARTITION_EOF:
                at_eof.add(msg.partition())
            else:
                errors.append(err_json(msg.error()))
            continue
        at_eof.discard(msg.partition())
        value = msg.value()
        records.append([msg.partition(), msg.offset(), value.decode() if value is not None else None])
    c.close()
    return {"records": records, "eof": sorted(at_eof), "partitions": parts}


def committed_offsets(consumer, topic, parts):
    got = consumer.committed([TopicPartition(topic, p) for p in parts], timeout=30)
    return {str(tp.partition): tp.offset for tp in got}


def transform(bootstrap, in_topic, out_topic, group, txn_id, count):
    ensure_topic(bootstrap, out_topic, 1)
    c = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "isolation.level": "read_committed",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "error_cb": on_error,
    })
    c.subscribe([in_topic])
    p = txn_producer(bootstrap, txn_id)
    delivered = []
    cb = delivery_to(delivered)
    steps = []
    deadline = time.monotonic() + 60
    for commit in (True, False):
        p.begin_transaction()
        consumed = []
        while len(consumed) < count and time.monotonic() < deadline:
            msg = c.poll(0.2)
            if msg is None:
                continue
            if msg.error():
                errors.append(err_json(msg.error()))
                continue
            consumed.append([msg.partition(), msg.offset(), msg.value().decode()])
            p.produce(out_topic, value=msg.value().decode().upper().encode(), on_delivery=cb)
        # Flushed so the aborted step's records reach the log (abort_transaction purges unsent ones).
        p.flush(30)
        positions = c.position(c.assignment())
        p.send_offsets_to_transaction(positions, c.consumer_group_metadata(), 30)
        if commit:
            p.commit_transaction(30)
        else:
            p.abort_transaction(30)
            # As after any abort: rewind to the committed offsets, which must be the first step's.
            for tp in c.committed(c.assignment(), timeout=30):
                c.seek(tp)
        parts = sorted(tp.partition for tp in c.assignment())
        steps.append({
            "committed_txn": commit,
            "consumed": consumed,
            "sent_offsets": {str(tp.partition): tp.offset for tp in positions},
            "group_committed": committed_offsets(c, in_topic, parts),
        })
    c.close()
    return {"steps": steps, "delivered": delivered}


def interleave(bootstrap, topic):
    ensure_topic(bootstrap, topic, 1)
    delivered = []
    cb = delivery_to(delivered)
    x = txn_producer(bootstrap, f"{topic}-x")
    y = txn_producer(bootstrap, f"{topic}-y")
    for rnd, (first, second) in ((1, (x, y)), (2, (y, x))):
        names = {id(x): "x", id(y): "y"}
        first.begin_transaction()
        second.begin_transaction()
        for i in range(2):
            for p in (first, second):
                p.produce(topic, value=f"{names[id(p)]}{rnd} {i}".encode(), on_delivery=cb)
                p.flush(30)
        first.abort_transaction(30)
        second.commit_transaction(30)
    return {"delivered": sorted(delivered)}


def fence(bootstrap, topic, txn_id):
    ensure_topic(bootstrap, topic, 1)
    delivered = []
    cb = delivery_to(delivered)
    zombie = txn_producer(bootstrap, txn_id)
    zombie.begin_transaction()
    zombie.produce(topic, value=b"zombie", on_delivery=cb)
    zombie.flush(30)
    successor = txn_producer(bootstrap, txn_id)
    successor.begin_transaction()
    successor.produce(topic, value=b"successor", on_delivery=cb)
    successor.commit_transaction(30)
    zombie_error = None
    try:
        zombie.commit_transaction(30)
    except KafkaException as e:
        zombie_error = err_json(e.args[0])
    return {"zombie_commit_error": zombie_error, "delivered": sorted(delivered)}


def timeout(bootstrap, topic, txn_id, timeout_ms, wait_s):
    ensure_topic(bootstrap, topic, 1)
    delivered = []
    cb = delivery_to(delivered)
    left = txn_producer(bootstrap, txn_id, **{"transaction.timeout.ms": timeout_ms})
    left.begin_transaction()
    for i in range(3):
        left.produce(topic, value=f"left-open {i}".encode(), on_delivery=cb)
    left.flush(30)
    plain = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "error_cb": on_error})
    plain.produce(topic, value=b"after", on_delivery=cb)
    plain.flush(30)
    started = time.monotonic()
    c = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": f"ck-txn-timeout-{time.time_ns()}",
        "isolation.level": "read_committed",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "error_cb": on_error,
    })
    c.assign([TopicPartition(topic, 0, confluent_kafka.OFFSET_BEGINNING)])
    seen = []
    while "after" not in seen and time.monotonic() < started + wait_s:
        msg = c.poll(0.2)
        if msg is None or msg.error():
            continue
        seen.append(msg.value().decode())
    waited_s = round(time.monotonic() - started, 1)
    c.close()
    left_error = None
    try:
        left.commit_transaction(10)
    except KafkaException as e:
        left_error = err_json(e.args[0])
    return {"read_committed": seen, "waited_s": waited_s, "left_commit_error": left_error, "delivered": sorted(delivered)}


def restart(bootstrap, topic, txn_id, mode, timeout_ms, wait_s):
    ensure_topic(bootstrap, topic, 1)
    delivered = []
    cb = delivery_to(delivered)
    p = txn_producer(bootstrap, txn_id, **{"transaction.timeout.ms": timeout_ms})
    p.begin_transaction()
    for i in range(3):
        p.produce(topic, value=f"before {i}".encode(), on_delivery=cb)
    p.flush(30)
    print(json.dumps({"ready": True}), flush=True)
    sys.stdin.readline()
    out = {}
    if mode == "commit":
        for i in range(3):
            p.produce(topic, value=f"after {i}".encode(), on_delivery=cb)
        p.flush(30)
        try:
            p.commit_transaction(30)
            out["commit_error"] = None
        except KafkaException as e:
            out["commit_error"] = err_json(e.args[0])
    else:
        plain = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "error_cb": on_error})
        plain.produce(topic, value=b"plain", on_delivery=cb)
        plain.flush(30)
        c = Consumer({
            "bootstrap.servers": bootstrap,
            "group.id": f"ck-txn-restart-{time.time_ns()}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "error_cb": on_error,
        })
        c.assign([TopicPartition(topic, 0, confluent_kafka.OFFSET_BEGINNING)])
        seen, deadline = [], time.monotonic() + wait_s
        while "plain" not in seen and time.monotonic() < deadline:
            msg = c.poll(0.2)
            if msg is not None and not msg.error():
                seen.append(msg.value().decode())
        c.close()
        out["read_committed"] = seen
        try:
            p.commit_transaction(10)
            out["commit_error"] = None
        except KafkaException as e:
            out["commit_error"] = err_json(e.args[0])
    out["delivered"] = sorted(delivered)
    return out


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "commit-abort":
        out = commit_abort(*args)
    elif cmd == "read":
        out = read(args[0], args[1], args[2], float(args[3]), *[int(a) for a in args[4:5]])
    elif cmd == "transform":
        out = transform(*args[:5], int(args[5]))
    elif cmd == "interleave":
        out = interleave(*args)
    elif cmd == "fence":
        out = fence(*args)
    elif cmd == "timeout":
        out = timeout(args[0], args[1], args[2], int(args[3]), float(args[4]))
    elif cmd == "restart":
        out = restart(args[0], args[1], args[2], args[3], int(args[4]), float(args[5]))
    else:
        raise SystemExit(f"unknown subcommand {cmd}")
    out["errors"] = errors
    out["librdkafka"] = confluent_kafka.libversion()[0]
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv)
