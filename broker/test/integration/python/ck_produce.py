"""confluent-kafka: an idempotent producer (enable.idempotence=true) sends COUNT records
"PREFIX i" to TOPIC with one compression codec. Prints the delivered (partition, offset) pairs and
any delivery error as one JSON line.

usage: ck_produce.py BOOTSTRAP TOPIC PREFIX COUNT CODEC [one-per-batch]
one-per-batch: each record in a batch of its own (a flush after each), e.g. for share groups, whose
brokers acquire whole batches (max.poll.records is a soft limit aligned to batches)."""
import json
import sys

import confluent_kafka
from confluent_kafka import Producer

bootstrap, topic, prefix, count, codec = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
one_per_batch = sys.argv[6:7] == ["one-per-batch"]
errors, delivered = [], []


def on_delivery(err, msg):
    if err:
        errors.append(str(err))
    else:
        delivered.append([msg.partition(), msg.offset()])


producer = Producer({
    "bootstrap.servers": bootstrap,
    "enable.idempotence": True,
    "compression.type": codec,
    "linger.ms": 5,
    "error_cb": lambda err: errors.append(f"error_cb: {err}"),
})
for i in range(count):
    producer.produce(topic, key=b"k%d" % (i % 3), value=f"{prefix} {i}".encode(), on_delivery=on_delivery)
    if one_per_batch:
        producer.flush(30)
unflushed = producer.flush(30)
print(json.dumps({"librdkafka": confluent_kafka.libversion()[0], "delivered": delivered, "errors": errors, "unflushed": unflushed}))
