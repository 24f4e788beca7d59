"""SASL produce + consume with kafka-python or confluent-kafka.

usage: sasl_roundtrip.py CLIENT BOOTSTRAP MECHANISM USER PASSWORD TOPIC COUNT [PAUSE_S]
CLIENT is kafka-python or confluent. With PAUSE_S, the producer sends one record, waits PAUSE_S
seconds (past CONNECTIONS_MAX_REAUTH_MS), then the rest. Prints one JSON line: the values read
back, or {"error": ...} when authentication fails. With MINNOW_TEST_CA set (a CA file), SASL_SSL.
"""
import json
import os
import sys
import time

client, bootstrap, mechanism, user, password, topic, count = sys.argv[1:8]
count = int(count)
pause = float(sys.argv[8]) if len(sys.argv) > 8 else 0.0
ca = os.environ.get("MINNOW_TEST_CA")
protocol = "SASL_SSL" if ca else "SASL_PLAINTEXT"


def kafka_python():
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.errors import KafkaError

    sasl = dict(
        bootstrap_servers=bootstrap,
        security_protocol=protocol,
        sasl_mechanism=mechanism,
        sasl_plain_username=user,
        sasl_plain_password=password,
    )
    if ca:
        sasl["ssl_cafile"] = ca
    try:
        producer = KafkaProducer(acks="all", retries=5, **sasl)
    except KafkaError as e:
        return {"error": "%s: %s" % (type(e).__name__, e)}
    for i in range(count):
        producer.send(topic, value=b"v%d" % i).get(timeout=20)
        if i == 0 and pause:
            time.sleep(pause)
    producer.close(timeout=20)
    consumer = KafkaConsumer(group_id=None, enable_auto_commit=False, consumer_timeout_ms=5000, **sasl)
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    values = []
    for msg in consumer:
        values.append(msg.value.decode())
        if len(values) >= count:
            break
    consumer.close()
    return {"values": values}


def confluent():
    from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

    errors = []
    sasl = {
        "bootstrap.servers": bootstrap,
        "security.protocol": protocol,
        "sasl.mechanisms": mechanism,
        "sasl.username": user,
        "sasl.password": password,
        "error_cb": lambda e: errors.append(str(e)),
    }
    if ca:
        sasl["ssl.ca.location"] = ca
    producer = Producer({**sasl, "acks": "all", "message.timeout.ms": 5000})
    delivered = []
    # librdkafka reports a refused login through error_cb at once, and would hold the record until
    # message.timeout.ms: a refusal ends the wait.
    refused = lambda: any("Authentication failed" in e for e in errors)
    for i in range(count):
        producer.produce(topic, value=b"v%d" % i, on_delivery=lambda err, msg: delivered.append(err))
        deadline = time.time() + 15
        while len(delivered) <= i and not refused() and time.time() < deadline:
            producer.flush(0.1)
        if any(delivered) or refused():
            break
        if i == 0 and pause:
            time.sleep(pause)
    if any(delivered) or len(delivered) < count:
        return {"error": " / ".join(errors or [str(e) for e in delivered if e])}
    consumer = Consumer({**sasl, "group.id": "sasl-check", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    values = []
    deadline = time.time() + 15
    while len(values) < count and time.time() < deadline:
        m = consumer.poll(0.5)
        if m is not None and not m.error():
            values.append(m.value().decode())
    consumer.close()
    return {"values": values}


print(json.dumps(kafka_python() if client == "kafka-python" else confluent()))
