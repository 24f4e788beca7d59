"""A group consumer of either protocol, as the conversion scripts make them: classic members with a
10 s session and 0.5 s heartbeats (the broker sets group.protocol=consumer members' timing)."""
from confluent_kafka import Consumer


def group_consumer(bootstrap, group, topic, protocol, error_cb, **extra):
    c = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "group.protocol": protocol,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "error_cb": error_cb,
        **({"session.timeout.ms": 10000, "heartbeat.interval.ms": 500} if protocol == "classic" else {}),
        **extra,
    })
    c.subscribe([topic])
    return c
