"""confluent-kafka (librdkafka): an idempotent producer bootstrapped from one broker, a consumer
by assignment bootstrapped from another; both brokers share one postgres:// database."""
import json
import sys

from confluent_kafka import Consumer, Producer, TopicPartition

produce_via, consume_via, topic, partitions, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
errors = []
producer = Producer({"bootstrap.servers": produce_via, "enable.idempotence": True, "linger.ms": 5})
for i in range(count):
    producer.produce(topic, value=b"ck %d" % i, partition=i % partitions, on_delivery=lambda err, msg: err and errors.append(str(err)))
remaining = producer.flush(30)

consumer = Consumer({"bootstrap.servers": consume_via, "group.id": "unused-assign-only", "enable.auto.commit": False})
consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
values = []
for _ in range(600):
    msg = consumer.poll(0.1)
    if msg is None:
        continue
    if msg.error():
        errors.append(str(msg.error()))
        continue
    values.append(msg.value().decode())
    if len(values) >= count:
        break
consumer.close()
print(json.dumps({"values": values, "errors": errors, "unflushed": remaining}))
