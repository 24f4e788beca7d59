"""confluent-kafka 1.7.0 (librdkafka 2.0.2, Debian python3-confluent-kafka): idempotent producer with
zstd, then a consumer by assignment."""
import json
import sys

from confluent_kafka import Consumer, Producer, TopicPartition

bootstrap, topic, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
errors = []
producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "compression.type": "zstd", "linger.ms": 5})
for i in range(count):
    producer.produce(topic, key=b"k%d" % (i % 3), value=b"confluent %d" % i, on_delivery=lambda err, msg: err and errors.append(str(err)))
remaining = producer.flush(20)

consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused-assign-only", "enable.auto.commit": False})
consumer.assign([TopicPartition(topic, 0, 0)])
values = []
for _ in range(200):
    msg = consumer.poll(0.1)
    if msg is None:
        if len(values) >= count:
            break
        continue
    if msg.error():
        errors.append(str(msg.error()))
        continue
    values.append(msg.value().decode())
    if len(values) >= count:
        break
consumer.close()
print(json.dumps({"values": values, "errors": errors, "unflushed": remaining}))
