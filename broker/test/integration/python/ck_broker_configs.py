"""confluent-kafka AdminClient on a broker's dynamic configs, as librdkafka's test 0081-admin does:
alter_configs (the legacy AlterConfigs) sets sasl.kerberos.min.time.before.relogin on the broker,
incremental_alter_configs sets log.cleaner.threads, describe_configs reads both back with their
source. Each outcome is recorded as data (an error is a result too); one JSON line at the end.

usage: ck_broker_configs.py BOOTSTRAP NODE_ID"""
import json
import sys

import confluent_kafka
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource

bootstrap, node = sys.argv[1], sys.argv[2]
TIMEOUT = 15
admin = AdminClient({"bootstrap.servers": bootstrap})
out = {}


def outcome(futures):
    (_, future), = futures.items()
    try:
        future.result(timeout=TIMEOUT)
        return "ok"
    except confluent_kafka.KafkaException as e:
        return e.args[0].name() + ": " + e.args[0].str()


legacy = ConfigResource(ConfigResource.Type.BROKER, node, set_config={"sasl.kerberos.min.time.before.relogin": "58000"})
out["alter"] = outcome(admin.alter_configs([legacy]))
incremental = ConfigResource(
    ConfigResource.Type.BROKER,
    node,
    incremental_configs=[ConfigEntry("log.cleaner.threads", "2", incremental_operation=AlterConfigOpType.SET)],
)
out["incremental"] = outcome(admin.incremental_alter_configs([incremental]))
(_, future), = admin.describe_configs([ConfigResource(ConfigResource.Type.BROKER, node)]).items()
configs = future.result(timeout=TIMEOUT)
out["describe"] = {
    name: {"value": configs[name].value, "source": int(configs[name].source)}
    for name in ("sasl.kerberos.min.time.before.relogin", "log.cleaner.threads")
    if name in configs
}
print(json.dumps(out))
