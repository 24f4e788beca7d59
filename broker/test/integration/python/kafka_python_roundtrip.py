"""kafka-python 2.0.2 (Debian python3-kafka): produce N messages, read them back by assignment."""
import json
import sys

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

bootstrap, topic, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", compression_type="gzip", linger_ms=5)
for i in range(count):
    producer.send(topic, key=b"k%d" % (i % 3), value=b"kafka-python %d" % i)
producer.flush(timeout=20)
producer.close(timeout=20)

consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False, consumer_timeout_ms=5000)
tp = TopicPartition(topic, 0)
consumer.assign([tp])
consumer.seek_to_beginning(tp)
values = []
for msg in consumer:
    values.append(msg.value.decode())
    if len(values) >= count:
        break
consumer.close()
print(json.dumps({"values": values, "api_version": list(producer.config["api_version"] or [])}))
