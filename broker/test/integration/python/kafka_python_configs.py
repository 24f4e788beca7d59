"""kafka-python 2.0.2 (Debian python3-kafka) admin: describe a topic's configs, alter them with
every value described (AlterConfigs), describe again. Prints both sets and the alter errors."""
import json
import sys

from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic

bootstrap, topic = sys.argv[1], sys.argv[2]
admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=20000)
admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])


def describe():
    response = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])[0]
    error_code, _msg, _type, _name, entries = response.resources[0]
    assert error_code == 0, response
    # (name, value, read_only, config_source, is_sensitive, synonyms)
    return {e[0]: [e[1], e[3]] for e in entries}


before = describe()
altered = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, configs={k: v[0] for k, v in before.items()})])
after = describe()
broker = admin.describe_configs([ConfigResource(ConfigResourceType.BROKER, "1")])[0].resources[0]
admin.close()
print(json.dumps({
    "before": before,
    "after": after,
    "alter": [[r[0], r[1]] for r in altered.resources],
    "broker": {"error": broker[0], "names": sorted(e[0] for e in broker[4])},
}))
