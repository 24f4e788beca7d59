"""confluent-kafka AdminClient against the broker: create topics (and a duplicate), describe
configs, delete records, list offsets, describe the cluster and topics, list and describe a group
with a live member, alter its offsets (refused while it has a member), list them, delete the group,
delete a topic. Each outcome is recorded as data (an error is a result too);
one JSON line at the end.

usage: ck_admin.py BOOTSTRAP TOPIC GROUP"""
import json
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, Producer, TopicCollection, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, OffsetSpec

bootstrap, topic, group = sys.argv[1], sys.argv[2], sys.argv[3]
doomed = topic + "-doomed"
TIMEOUT = 15
admin = AdminClient({"bootstrap.servers": bootstrap})
out = {"librdkafka": confluent_kafka.libversion()[0]}


def outcome(future):
    """The future's result, or its KafkaError's name and message."""
    try:
        return {"ok": future.result(timeout=TIMEOUT)}
    except confluent_kafka.KafkaException as e:
        err = e.args[0]
        return {"error": err.name(), "message": err.str()}


def names(futures):
    return {name: ("ok" if "ok" in (r := outcome(f)) else r["error"]) for name, f in futures.items()}


new = [NewTopic(topic, num_partitions=3, replication_factor=1, config={"retention.ms": "3600000"}), NewTopic(doomed, num_partitions=1, replication_factor=1)]
out["create"] = names(admin.create_topics(new, operation_timeout=TIMEOUT))
out["create_again"] = names(admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)]))

(resource, future), = admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)]).items()
entries = outcome(future)
out["describe_configs"] = {k: {"value": v.value, "source": v.source} for k, v in entries["ok"].items() if k in ("retention.ms", "cleanup.policy")} if "ok" in entries else entries

producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
for i in range(5):
    producer.produce(topic, value=b"r%d" % i, partition=0)
producer.flush(TIMEOUT)

deleted = outcome(admin.delete_records([TopicPartition(topic, 0, 3)])[TopicPartition(topic, 0)])
out["delete_records"] = {"low_watermark": deleted["ok"].low_watermark} if "ok" in deleted else deleted
offsets = {}
for spec_name, spec in (("earliest", OffsetSpec.earliest()), ("latest", OffsetSpec.latest())):
    r = outcome(admin.list_offsets({TopicPartition(topic, 0): spec})[TopicPartition(topic, 0)])
    offsets[spec_name] = r["ok"].offset if "ok" in r else r
out["list_offsets"] = offsets

cluster = outcome(admin.describe_cluster())
out["describe_cluster"] = {"nodes": len(cluster["ok"].nodes), "controller": cluster["ok"].controller.id} if "ok" in cluster else cluster
described = outcome(admin.describe_topics(TopicCollection([topic]))[topic])
out["describe_topics"] = {"partitions": len(described["ok"].partitions)} if "ok" in described else described

# A live member, so the group has a member and an assignment to describe.
member = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False})
member.subscribe([topic])
deadline = time.monotonic() + 30
while time.monotonic() < deadline and not member.assignment():
    member.poll(0.2)
listed = outcome(admin.list_consumer_groups())
out["list_groups"] = sorted([g.group_id, str(g.state)] for g in listed["ok"].valid) if "ok" in listed else listed
groups = outcome(admin.describe_consumer_groups([group])[group])
if "ok" in groups:
    g = groups["ok"]
    out["describe_group"] = {
        "state": str(g.state),
        "members": [sorted(tp.partition for tp in m.assignment.topic_partitions) for m in g.members],
        "assignor": g.partition_assignor,
    }
else:
    out["describe_group"] = groups


def alter_offsets(offset):
    r = outcome(admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(group, [TopicPartition(topic, 0, offset)])])[group])
    return [[tp.partition, tp.offset, tp.error and tp.error.name()] for tp in r["ok"].topic_partitions] if "ok" in r else r["error"]


out["alter_offsets_live"] = alter_offsets(2)
member.close()
out["alter_offsets_empty"] = alter_offsets(2)
listed_offsets = outcome(admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group])
out["list_group_offsets"] = [[tp.topic, tp.partition, tp.offset] for tp in listed_offsets["ok"].topic_partitions] if "ok" in listed_offsets else listed_offsets
out["delete_groups"] = names(admin.delete_consumer_groups([group, group + "-missing"]))

out["delete_topics"] = names(admin.delete_topics([doomed], operation_timeout=TIMEOUT))
deadline = time.monotonic() + TIMEOUT
while time.monotonic() < deadline and doomed in admin.list_topics(timeout=TIMEOUT).topics:
    time.sleep(0.2)
out["listed_after_delete"] = doomed in admin.list_topics(timeout=TIMEOUT).topics
print(json.dumps(out))
