"""confluent-kafka (librdkafka) on a compacted topic (issue 17).

produce BOOTSTRAP TOPIC KEYS ROUNDS: an idempotent zstd producer sends ROUNDS updates of KEYS keys
("k<i>" = "c<i>:<n>"). Prints {"sent": n, "errors": [...]}.
consume BOOTSTRAP TOPIC END: reads partition 0 from the beginning until its position reaches END
(offset gaps and empty batches must not stall it) or 30 s pass. Prints {"records":
[[offset, key, value|null]], "position": p, "version": librdkafka's}.
"""
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition, libversion

mode, bootstrap, topic = sys.argv[1], sys.argv[2], sys.argv[3]

if mode == "produce":
    keys, rounds = int(sys.argv[4]), int(sys.argv[5])
    errors = []
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "compression.type": "zstd",
                  "linger.ms": 5})
    n = 0
    for _ in range(rounds):
        for k in range(keys):
            p.produce(topic, partition=0, key=b"k%d" % k, value=b"c%d:%d" % (k, n),
                      on_delivery=lambda err, msg: err and errors.append(err.name()))
            n += 1
            p.poll(0)
    p.flush(30)
    print(json.dumps({"sent": n, "errors": errors}))
elif mode == "consume":
    end = int(sys.argv[4])
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "compaction-reader", "enable.auto.commit": False,
                  "fetch.max.bytes": 4096, "message.max.bytes": 4096,
                  "max.partition.fetch.bytes": 4096})
    c.assign([TopicPartition(topic, 0, -2)])  # OFFSET_BEGINNING
    records = []
    deadline = time.time() + 30
    position = -1
    while time.time() < deadline:
        m = c.poll(0.2)
        if m is not None and m.error() is None:
            records.append([m.offset(), m.key().decode() if m.key() is not None else None,
                            m.value().decode() if m.value() is not None else None])
        position = c.position([TopicPartition(topic, 0)])[0].offset
        if position >= end:
            break
    c.close()
    print(json.dumps({"records": records, "position": position, "version": libversion()[0]}))
else:
    raise SystemExit("unknown mode " + mode)
