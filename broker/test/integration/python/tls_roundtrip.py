"""Produce N messages and read them back over a TLS listener (security.protocol SSL), trusting only
the given CA: with kafka-python 2.0.2 or confluent-kafka (librdkafka), whichever argv[1] names.
Prints one JSON line: the values read back."""
import json
import sys

client, bootstrap, cafile, topic, count = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
values = []

if client == "kafka-python":
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    tls = dict(security_protocol="SSL", ssl_cafile=cafile, ssl_check_hostname=True)
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **tls)
    for i in range(count):
        producer.send(topic, value=b"tls %d" % i)
    producer.flush(timeout=20)
    producer.close(timeout=20)
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False, consumer_timeout_ms=5000, **tls
    )
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    for msg in consumer:
        values.append(msg.value.decode())
        if len(values) >= count:
            break
    consumer.close()
else:
    import time

    from confluent_kafka import Consumer, Producer

    tls = {"bootstrap.servers": bootstrap, "security.protocol": "SSL", "ssl.ca.location": cafile}
    errors = []
    producer = Producer(dict(tls, **{"acks": "all"}))
    for i in range(count):
        producer.produce(topic, value=b"tls %d" % i, on_delivery=lambda err, msg: err and errors.append(str(err)))
    left = producer.flush(20)
    if left or errors:
        sys.exit("produce failed: %d undelivered, errors %s" % (left, errors))
    consumer = Consumer(dict(tls, **{"group.id": "tls-" + topic, "auto.offset.reset": "earliest"}))
    consumer.subscribe([topic])
    deadline = time.time() + 30
    while len(values) < count and time.time() < deadline:
        msg = consumer.poll(1.0)
        if msg is None:
            continue
        if msg.error():
            sys.exit("consume failed: %s" % msg.error())
        values.append(msg.value().decode())
    consumer.close()

print(json.dumps({"values": values}))
