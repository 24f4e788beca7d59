"""confluent-kafka: an exactly-once consume-transform-produce service that rides out broker kills.
A read_committed group member of IN (KIP-447: librdkafka asks OffsetFetch with require_stable) and
a transactional producer copy each record to the same partition of OUT in transactions of at most
CHUNK records, with the consumed positions sent in the transaction. On an abortable error it
aborts and rewinds to the committed offsets; on any other error it starts over with a new producer
(init_transactions fences the old one and aborts its transaction) and then a new consumer. It prints
a JSON line {"committed": N, "restarts": R} after each commit and stops when the group's committed
offsets reach IN's end offsets (given as END, comma-separated per partition) or DEADLINE_S passes;
the last line is a summary {"done", "commits", "restarts", "aborts", "reasons"}.

usage: ck_txn_loop.py BOOTSTRAP IN OUT GROUP TXN_ID END CHUNK DEADLINE_S [GROUP_PROTOCOL]
(GROUP_PROTOCOL: classic, the default, or consumer: the consumer is a KIP-848 member, whose
send_offsets_to_transaction carries its member epoch)"""
import faulthandler
import json
import os
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition, OFFSET_BEGINNING

bootstrap, src, dst, group, txn_id = sys.argv[1:6]
end = [int(x) for x in sys.argv[6].split(",")]
chunk, deadline = int(sys.argv[7]), time.monotonic() + float(sys.argv[8])
# A call that hangs past the deadline leaves its stack on stderr for the test's failure message.
group_protocol = sys.argv[9] if len(sys.argv) > 9 else "classic"
faulthandler.dump_traceback_later(float(sys.argv[8]) + 10, exit=True)
t0 = time.monotonic()
state = {"done": False, "commits": 0, "committed": 0, "restarts": 0, "aborts": 0, "reasons": []}


def reason(what, e):
    err = e.args[0] if isinstance(e, KafkaException) and e.args else e
    name = err.name() if hasattr(err, "name") else type(err).__name__
    state["reasons"].append(f"{what}: {name}")
    print(f"ck_txn_loop: {time.monotonic() - t0:.1f}s {what}: {err}", file=sys.stderr, flush=True)


RECONNECT = {"reconnect.backoff.ms": 50, "reconnect.backoff.max.ms": 500}


def slow(what, started):
    """Notes a call that blocked over a second (the failure story of a stalled run)."""
    took = time.monotonic() - started
    if took > 1:
        print(f"ck_txn_loop: {time.monotonic() - t0:.1f}s {what} took {took:.1f}s", file=sys.stderr, flush=True)


def start():
    p = Producer({
        "bootstrap.servers": bootstrap,
        "transactional.id": txn_id,
        "linger.ms": 5,
        "transaction.timeout.ms": 20000,
        # With the one broker down, librdkafka >= 2.10 re-bootstraps and decommissions its broker
        # handles; send_offsets_to_transaction then waits forever on the cached, decommissioned
        # group coordinator, past its timeout (librdkafka issues #5511 and #5456, open; fix PR #5512).
        "metadata.recovery.strategy": "none",
        # Reconnect within half a second of the broker's return (librdkafka's default backoff grows
        # to 10 s over the refused connections while it is down: each kill would cost that).
        **RECONNECT,
        "error_cb": lambda err: None,  # transport errors while the broker is down
        **({"debug": os.environ["CK_DEBUG"]} if os.environ.get("CK_DEBUG") else {}),
    })
    p.init_transactions(30)
    c = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "isolation.level": "read_committed",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        # KIP-848 members take their session timeout from the broker (group.consumer.session.timeout.ms).
        **({"session.timeout.ms": 10000} if group_protocol == "classic" else {"group.protocol": group_protocol}),
        **RECONNECT,
        "error_cb": lambda err: None,
        **({"debug": os.environ["CK_DEBUG_CONSUMER"]} if os.environ.get("CK_DEBUG_CONSUMER") else {}),
    })
    c.subscribe([src])
    return p, c


def finished(c):
    got = c.committed([TopicPartition(src, i) for i in range(len(end))], timeout=5)
    return all(tp.offset == end[tp.partition] for tp in got)


def rewind(c):
    for tp in c.committed(c.assignment(), timeout=10):
        c.seek(TopicPartition(src, tp.partition, tp.offset if tp.offset >= 0 else OFFSET_BEGINNING))


p = c = None
last_check = 0.0
while time.monotonic() < deadline:
    try:
        if p is None:
            at = time.monotonic()
            p, c = start()
            slow("start", at)
        at = time.monotonic()
        msgs = [m for m in c.consume(num_messages=chunk, timeout=0.5) if not m.error()]
        slow("consume", at)
        if not msgs:
            if time.monotonic() - last_check > 1:
                last_check = time.monotonic()
                if finished(c):
                    state["done"] = True
                    break
            continue
        p.begin_transaction()
        try:
            for m in msgs:
                p.produce(dst, value=m.value(), partition=m.partition())
            at = time.monotonic()
            p.send_offsets_to_transaction(c.position(c.assignment()), c.consumer_group_metadata(), 30)
            slow("send_offsets_to_transaction", at)
            at = time.monotonic()
            p.commit_transaction(30)
            slow("commit_transaction", at)
        except KafkaException as e:
            if not e.args[0].txn_requires_abort():
                raise
            reason("abortable", e)
            at = time.monotonic()
            p.abort_transaction(30)
            slow("abort_transaction", at)
            state["aborts"] += 1
            at = time.monotonic()
            rewind(c)
            slow("rewind", at)
            continue
        state["commits"] += 1
        state["committed"] += len(msgs)
        print(json.dumps({"committed": state["committed"], "restarts": state["restarts"]}), flush=True)
    except Exception as e:  # fatal, retriable after retries, timeouts: start over, fenced first
        reason("restart", e)
        state["restarts"] += 1
        for closing in (c,):
            try:
                if closing is not None:
                    closing.close()
            except Exception:
                pass
        p = c = None
        time.sleep(0.2)

if c is not None:
    c.close()
print(json.dumps(state), flush=True)
