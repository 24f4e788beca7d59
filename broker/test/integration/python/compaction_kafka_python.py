"""kafka-python 2.0.2 (Debian python3-kafka) on a compacted topic (issue 17).

produce BOOTSTRAP TOPIC CODEC KEYS ROUNDS TOMBSTONES: ROUNDS updates of KEYS keys ("k<i>" = "k<i>:<n>"
where n is the record's index, so its offset on a new topic), then a tombstone (null value) for the
first TOMBSTONES keys. Prints {"sent": n}.
consume BOOTSTRAP TOPIC END: reads partition 0 from the beginning until its position reaches END
(gaps and empty batches must not stall it) or 30 s pass. Prints {"records": [[offset, key, value|null]],
"position": p}.
keyless BOOTSTRAP TOPIC: sends one record without a key; prints {"error": the exception's class name}.
"""
import json
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

mode, bootstrap, topic = sys.argv[1], sys.argv[2], sys.argv[3]

if mode == "produce":
    codec, keys, rounds, tombstones = sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
    producer = KafkaProducer(
        bootstrap_servers=bootstrap,
        acks="all",
        compression_type=None if codec == "none" else codec,
        linger_ms=5,
        max_in_flight_requests_per_connection=1,  # offsets in send order
    )
    n = 0
    for _ in range(rounds):
        for k in range(keys):
            producer.send(topic, partition=0, key=b"k%d" % k, value=b"k%d:%d" % (k, n))
            n += 1
    for k in range(tombstones):
        producer.send(topic, partition=0, key=b"k%d" % k, value=None)
        n += 1
    producer.flush(timeout=30)
    producer.close(timeout=30)
    print(json.dumps({"sent": n}))
elif mode == "consume":
    end = int(sys.argv[4])
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False, max_partition_fetch_bytes=4096
    )
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    records = []
    deadline = time.time() + 30
    while consumer.position(tp) < end and time.time() < deadline:
        for msgs in consumer.poll(timeout_ms=500).values():
            for m in msgs:
                records.append([m.offset, m.key.decode() if m.key is not None else None,
                                m.value.decode() if m.value is not None else None])
    position = consumer.position(tp)
    consumer.close()
    print(json.dumps({"records": records, "position": position}))
elif mode == "keyless":
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=0)
    error = None
    try:
        producer.send(topic, partition=0, value=b"no key").get(timeout=20)
    except Exception as e:  # kafka.errors.* for the broker's error code
        error = type(e).__name__
    producer.close(timeout=10)
    print(json.dumps({"error": error}))
else:
    raise SystemExit("unknown mode " + mode)
