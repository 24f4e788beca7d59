"""confluent-kafka (PyPI) AdminClient: SCRAM users as kafka-configs --entity-type users manages them.

usage: ck_scram_admin.py BOOTSTRAP ADMIN_USER ADMIN_PASSWORD
Adds henry (SCRAM-SHA-512, 8192 iterations), describes him, tries 1000 iterations (refused), then
logs in as henry and lists topics. Prints one JSON line.
"""
import json
import sys

from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)

bootstrap, admin_user, admin_password = sys.argv[1:4]


def client(user, password):
    return AdminClient(
        {
            "bootstrap.servers": bootstrap,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "SCRAM-SHA-256",
            "sasl.username": user,
            "sasl.password": password,
        }
    )


admin = client(admin_user, admin_password)
out = {}
up = UserScramCredentialUpsertion("henry", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), b"henry-pw")
for user, f in admin.alter_user_scram_credentials([up]).items():
    f.result(10)
    out["added"] = user
desc = admin.describe_user_scram_credentials(["henry"])
info = desc["henry"].result(10)
out["described"] = [[str(i.mechanism.name), i.iterations] for i in info.scram_credential_infos]
weak = UserScramCredentialUpsertion("ivy", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 1000), b"ivy-pw")
try:
    admin.alter_user_scram_credentials([weak])["ivy"].result(10)
    out["weak"] = "accepted"
except Exception as e:  # KafkaException carrying the broker's error
    err = e.args[0]
    out["weak"] = [err.name(), err.str()]
henry = AdminClient(
    {
        "bootstrap.servers": bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "SCRAM-SHA-512",
        "sasl.username": "henry",
        "sasl.password": "henry-pw",
    }
)
out["henry_sees_brokers"] = len(henry.list_topics(timeout=10).brokers)
print(json.dumps(out))
